package pack

import (
	"bytes"
	"debug/macho"
	"encoding/binary"
	"fmt"
	"slices"
)

// fatAlign is the alignment of each architecture's slice in a universal
// binary, as a power of two: 16 KiB, the page size of arm64 macOS, as lipo
// and GoReleaser use.
const fatAlign = 14

// universal joins Mach-O executables for different CPUs into one universal
// ("fat") binary that macOS runs on any of them. The slices are kept byte
// for byte, so their code signatures stay valid; they are ordered by CPU
// type so that the result does not depend on the order of the arguments.
func universal(execs ...[]byte) ([]byte, error) {
	type slice struct {
		cpu, sub uint32
		data     []byte
	}
	var ss []slice
	for _, data := range execs {
		f, err := macho.NewFile(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("not a Mach-O executable: %w", err)
		}
		ss = append(ss, slice{uint32(f.Cpu), f.SubCpu, data})
	}
	slices.SortFunc(ss, func(a, b slice) int { return int(a.cpu) - int(b.cpu) })
	for i := 1; i < len(ss); i++ {
		if ss[i].cpu == ss[i-1].cpu {
			return nil, fmt.Errorf("two Mach-O executables for the same CPU (%v)", macho.Cpu(ss[i].cpu))
		}
	}
	align := uint32(1) << fatAlign
	// fat_header (2 uint32s), then a fat_arch (5 uint32s) per slice.
	offset := alignUp(uint32(8+20*len(ss)), align)
	var buf bytes.Buffer
	put := func(v ...uint32) {
		for _, x := range v {
			binary.Write(&buf, binary.BigEndian, x)
		}
	}
	put(macho.MagicFat, uint32(len(ss)))
	offsets := make([]uint32, len(ss))
	for i, s := range ss {
		if uint64(offset)+uint64(len(s.data)) > 1<<32-1 {
			return nil, fmt.Errorf("a universal binary holds at most 4 GiB")
		}
		offsets[i] = offset
		put(s.cpu, s.sub, offset, uint32(len(s.data)), fatAlign)
		offset = alignUp(offset+uint32(len(s.data)), align)
	}
	for i, s := range ss {
		buf.Write(make([]byte, int(offsets[i])-buf.Len()))
		buf.Write(s.data)
	}
	return buf.Bytes(), nil
}

func alignUp(n, align uint32) uint32 { return (n + align - 1) &^ (align - 1) }

package mcpb

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"
)

// File is one file of a bundle.
type File struct {
	// Name is the slash-separated path inside the bundle, such as
	// "server/mcpship".
	Name string
	Data []byte
	// Mode holds the permission bits kept in the bundle: 0o755 for an
	// executable, 0o644 (the default when zero) otherwise.
	Mode fs.FileMode
}

// modTime is the modification time of every entry Write writes, so that the
// same inputs give the same bytes. It is the earliest time a zip file can
// hold.
var modTime = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)

// pngSignature starts every PNG file.
var pngSignature = []byte("\x89PNG\r\n\x1a\n")

// Write writes a bundle to w: m as manifest.json, then the files in the
// order of their names, each with its mode, dated 1980-01-01 (the earliest
// time a zip file holds) and compressed with Deflate. There are no entries
// for directories: the official unpacker refuses them. Write checks first and writes nothing when m fails
// [Manifest.Check], when a file name is not a clean relative path or comes
// twice, when the server's entry point or a local icon is not among the
// files, or when the icon is not a PNG image. A binary server's entry point
// must be executable (Mode 0o755).
func Write(w io.Writer, m *Manifest, files []File) error {
	if err := m.Check(); err != nil {
		return err
	}
	files = slices.Clone(files)
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Name, b.Name) })
	byName := map[string]File{}
	dirs := map[string]bool{}
	for _, f := range files {
		if err := checkName(f.Name); err != nil {
			return fmt.Errorf("bundle file: %w", err)
		}
		if f.Name == "manifest.json" {
			return fmt.Errorf("bundle file %q: Write writes manifest.json from the Manifest", f.Name)
		}
		if _, dup := byName[f.Name]; dup || dirs[f.Name] {
			return fmt.Errorf("bundle file %q given twice, or also a directory", f.Name)
		}
		byName[f.Name] = f
		for d := path.Dir(f.Name); d != "."; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	for name := range dirs {
		if _, clash := byName[name]; clash {
			return fmt.Errorf("bundle file %q is also a directory", name)
		}
	}
	entry, ok := byName[m.Server.EntryPoint]
	if !ok {
		return fmt.Errorf("server.entry_point %q is not among the bundle's files", m.Server.EntryPoint)
	}
	if m.Server.Type == "binary" && entry.Mode&0o111 == 0 {
		return fmt.Errorf("server.entry_point %q is a binary but not executable; give it Mode 0o755", m.Server.EntryPoint)
	}
	if m.Icon != "" && !strings.HasPrefix(m.Icon, "https://") {
		icon, ok := byName[m.Icon]
		if !ok {
			return fmt.Errorf("icon %q is not among the bundle's files", m.Icon)
		}
		if !bytes.HasPrefix(icon.Data, pngSignature) {
			return fmt.Errorf("icon %q is not a PNG image", m.Icon)
		}
	}
	var manifest bytes.Buffer
	enc := json.NewEncoder(&manifest)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return fmt.Errorf("encode manifest.json: %w", err)
	}

	zw := zip.NewWriter(w)
	for _, f := range append([]File{{Name: "manifest.json", Data: manifest.Bytes()}}, files...) {
		if err := add(zw, f); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("write bundle: %w", err)
	}
	return nil
}

func add(zw *zip.Writer, f File) error {
	h := &zip.FileHeader{Name: f.Name, Method: zip.Deflate, Modified: modTime}
	mode := f.Mode.Perm()
	if mode == 0 {
		mode = 0o644
	}
	h.SetMode(mode)
	fw, err := zw.CreateHeader(h)
	if err != nil {
		return fmt.Errorf("write bundle entry %s: %w", f.Name, err)
	}
	if _, err := fw.Write(f.Data); err != nil {
		return fmt.Errorf("write bundle entry %s: %w", f.Name, err)
	}
	return nil
}

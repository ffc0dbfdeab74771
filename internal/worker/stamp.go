package worker

import (
	"fmt"
	"os"
	"strings"
)

// takeStamp describes the files a worker depends on, its executable and
// its restartOn files, by what stat says of each (or that it is
// missing): two stamps differ when any of them was changed, replaced,
// created or deleted. A folder's stat changes when an entry is added,
// removed or renamed.
func takeStamp(paths []string) string {
	var b strings.Builder
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			fmt.Fprintf(&b, "%s\x00-\x00", p)
			continue
		}
		fmt.Fprintf(&b, "%s\x00%d %o %d %s\x00", p, fi.Size(), fi.Mode(), fi.ModTime().UnixNano(), sysStat(fi))
	}
	return b.String()
}

package dist

import (
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// fakeReleases imitates the GitHub release URLs that install.sh uses, under
// its base URL:
//
//	/latest               302 to /tag/<latest>
//	/tag/<tag>            200
//	/download/<tag>/<f>   302 to /objects/<tag>/<f>, as GitHub sends to its CDN
//	/objects/<tag>/<f>    the file, or 404
//
// It records the path of every request. A request for the path stall
// stalls: it gets the status line, the headers and the first stallAfter
// bytes of the answer (nothing at all when stallAfter is negative), then
// nothing more until the client hangs up.
type fakeReleases struct {
	*httptest.Server
	latest     string            // tag that /latest points to; "" answers 404
	files      map[string][]byte // "<tag>/<file name>" -> content
	stall      string            // a request path, e.g. "/latest"
	stallAfter int

	stop chan struct{} // closed when the test ends, to end stalled requests

	mu       sync.Mutex
	requests []string
}

// releaseFiles caches the files of the test release, read once.
var (
	releaseFilesOnce sync.Once
	releaseFilesMap  map[string][]byte
	releaseFilesErr  error
)

// newFakeReleases serves the release built by release() as testTag. The
// caller may change latest and files before the first request.
func newFakeReleases(t *testing.T) *fakeReleases {
	t.Helper()
	dist := release(t)
	releaseFilesOnce.Do(func() {
		releaseFilesMap = map[string][]byte{}
		names := []string{"checksums.txt"}
		for _, p := range platforms {
			names = append(names, archiveName(p))
		}
		for _, name := range names {
			b, err := os.ReadFile(filepath.Join(dist, name))
			if err != nil {
				releaseFilesErr = err
				return
			}
			releaseFilesMap[testTag+"/"+name] = b
		}
	})
	if releaseFilesErr != nil {
		t.Fatal(releaseFilesErr)
	}
	f := &fakeReleases{latest: testTag, files: maps.Clone(releaseFilesMap), stop: make(chan struct{})}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	t.Cleanup(func() { close(f.stop) }) // runs first: Close waits for stalled requests
	return f
}

func (f *fakeReleases) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, r.URL.Path)
	f.mu.Unlock()
	p := r.URL.Path
	if p == f.stall {
		if f.stallAfter >= 0 {
			w.Header().Set("Content-Length", "1000000")
			w.WriteHeader(http.StatusOK)
			w.Write(make([]byte, f.stallAfter))
			w.(http.Flusher).Flush()
		}
		select {
		case <-r.Context().Done():
		case <-f.stop:
		}
		return
	}
	switch {
	case p == "/latest":
		if f.latest == "" {
			http.NotFound(w, r)
			return
		}
		http.Redirect(w, r, "/tag/"+f.latest, http.StatusFound)
	case strings.HasPrefix(p, "/tag/"):
		w.Write([]byte("<html>release page</html>\n"))
	case strings.HasPrefix(p, "/download/"):
		http.Redirect(w, r, "/objects/"+strings.TrimPrefix(p, "/download/"), http.StatusFound)
	case strings.HasPrefix(p, "/objects/"):
		b, ok := f.files[strings.TrimPrefix(p, "/objects/")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(b)
	default:
		http.NotFound(w, r)
	}
}

// requested returns the paths requested so far.
func (f *fakeReleases) requested() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.requests...)
}

package addcmd

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/mcpship/mcpship/internal/registry"
)

// download fetches the https URL u into a new temporary file, refusing
// a redirect to another host (see [registry.SameHost]) and more than max
// bytes. The caller removes the file.
func download(ctx context.Context, u string, max int64) (string, error) {
	pu, err := url.Parse(u)
	if err != nil || pu.Scheme != "https" || pu.Host == "" {
		return "", fmt.Errorf("%s is not an https:// URL; bundles are downloaded over https only", u)
	}
	client := &http.Client{Timeout: 10 * time.Minute, CheckRedirect: registry.SameHost}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", fmt.Errorf("downloading the bundle: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("downloading the bundle %s: the server answered %s", u, resp.Status)
	}
	if resp.ContentLength > max {
		return "", fmt.Errorf("the bundle %s is %d bytes, over the limit of %d; refusing it", u, resp.ContentLength, max)
	}
	f, err := os.CreateTemp("", "mcpship-*.mcpb")
	if err != nil {
		return "", err
	}
	n, err := io.Copy(f, io.LimitReader(resp.Body, max+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	switch {
	case err != nil:
		err = fmt.Errorf("downloading the bundle %s: %w", u, err)
	case n > max:
		err = fmt.Errorf("the bundle %s is over the limit of %d bytes; refusing it", u, max)
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

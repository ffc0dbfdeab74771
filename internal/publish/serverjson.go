package publish

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/mcpship/mcpship/internal/atomicfile"
)

// SchemaURL is the version of the registry's server.json schema that
// [WriteServerJSON] writes.
const SchemaURL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"

// A Server is what the official MCP Registry lists about a server.
type Server struct {
	// Name is the server's name in reverse-DNS form, such as
	// "io.github.owner/rigor": a namespace the publisher proves they own,
	// a slash, and the server's own name.
	Name string
	// Title is an optional display name.
	Title string
	// Description says what the server does, in at most 100 characters.
	Description string
	// Version is the version being published, such as "1.2.0".
	Version string
	// Repository is the URL of the source code, if any.
	Repository string
	// WebsiteURL is the server's home page, if any.
	WebsiteURL string
	// Packages are the ways to install this version.
	Packages []Package
}

// A Package is one way to install a server: a bundle to download, a
// module of a package registry, or a container image.
type Package struct {
	// RegistryType is "mcpb" for an MCP Bundle, "go" for a Go module,
	// "oci" for a container image.
	RegistryType string `json:"registryType"`
	// RegistryBaseURL is the package registry's address, such as
	// "https://proxy.golang.org"; empty for a bundle.
	RegistryBaseURL string `json:"registryBaseUrl,omitempty"`
	// Identifier is the bundle's download URL, the module path, or the
	// image reference (REGISTRY/NAMESPACE/REPOSITORY:TAG).
	Identifier string `json:"identifier"`
	// Version is the package's own version, if it has one.
	Version string `json:"version,omitempty"`
	// FileSHA256 is the bundle's SHA-256, in lower-case hex; clients
	// check the download against it.
	FileSHA256 string `json:"fileSha256,omitempty"`
	// RuntimeHint names the program that runs the package, such as
	// "docker"; RuntimeArguments are given to it.
	RuntimeHint      string     `json:"runtimeHint,omitempty"`
	RuntimeArguments []Argument `json:"runtimeArguments,omitempty"`
	// Transport is how a client talks to the installed server.
	Transport Transport `json:"transport"`
	// Arguments are given to the installed program, as literal values.
	Arguments []Argument `json:"packageArguments,omitempty"`
	// Env are the environment variables the server reads.
	Env []EnvVar `json:"environmentVariables,omitempty"`
}

// A Transport is a package's transport: "stdio" for a bundle or a
// module, "streamable-http" at URL for an image, which serves HTTP.
type Transport struct {
	Type string `json:"type"`
	URL  string `json:"url,omitempty"`
	// Headers are the HTTP headers a client sends; {NAME} in a value
	// stands for the package's environment variable NAME.
	Headers []EnvVar `json:"headers,omitempty"`
}

// An Argument is a command-line argument with a fixed value: positional,
// or named (Name, such as "--publish", given as Name=Value).
type Argument struct {
	Type  string `json:"type"` // "positional" or "named"
	Name  string `json:"name,omitempty"`
	Value string `json:"value"`
}

// An EnvVar is an environment variable that a user may or must set, or
// an HTTP header with a Value.
type EnvVar struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Value       string `json:"value,omitempty"`
	Required    bool   `json:"isRequired,omitempty"`
	Secret      bool   `json:"isSecret,omitempty"`
	Default     string `json:"default,omitempty"`
}

// BundlePackage returns the package entry of an MCP Bundle that users
// download from url, whose SHA-256 is sha256 (in hex).
func BundlePackage(url, sha256 string) Package {
	return Package{RegistryType: "mcpb", Identifier: url, FileSHA256: strings.ToLower(sha256), Transport: Transport{Type: "stdio"}}
}

// GoPackage returns the package entry of a Go program that serves MCP
// when run with args, installed from module (a module path, or the path
// of a package inside one, such as "github.com/owner/app/cmd/app") at
// version (such as "v1.2.0"). The registry accepts Go modules only from
// github.com for servers in the matching io.github namespace; for others
// GoPackage says why in its error.
func GoPackage(server, module, version string, args []string) (Package, error) {
	ns, _, _ := strings.Cut(server, "/")
	owner, ok := strings.CutPrefix(ns, "io.github.")
	if !ok {
		return Package{}, fmt.Errorf("the registry lists Go modules only for servers named io.github.OWNER/..., not %s", server)
	}
	modOwner, _, _ := strings.Cut(strings.TrimPrefix(module, "github.com/"), "/")
	if !strings.HasPrefix(module, "github.com/") || !strings.EqualFold(modOwner, owner) {
		return Package{}, fmt.Errorf("the registry lists Go modules for %s only from github.com/%s/..., not %s", server, owner, module)
	}
	if !strings.HasPrefix(version, "v") {
		return Package{}, fmt.Errorf("the Go module version %q must be a module version, such as v1.2.0", version)
	}
	p := Package{
		RegistryType:    "go",
		RegistryBaseURL: "https://proxy.golang.org",
		Identifier:      module,
		Version:         version,
		Transport:       Transport{Type: "stdio"},
	}
	for _, a := range args {
		p.Arguments = append(p.Arguments, Argument{Type: "positional", Value: a})
	}
	return p, nil
}

// ImagePort is the port the image of a server built on mcpship's release
// image listens on, and ImageTokenEnv the variable that holds the bearer
// token it requires (release.Dockerfile).
const (
	ImagePort     = "8080"
	ImageTokenEnv = "MCPSHIP_AUTH_TOKEN"
)

// ociRegistries are the image registries the official MCP Registry takes
// "oci" packages from; a name ending in "." is a domain suffix.
var ociRegistries = []string{"docker.io", "ghcr.io", "quay.io", "mcr.microsoft.com", ".pkg.dev", ".azurecr.io"}

// OCIPackage returns the package entry of a container image of the
// server: ref is REGISTRY/NAMESPACE/REPOSITORY with a tag or a digest, or
// without either, when the tag is version. The image serves MCP over
// HTTP as mcpship's release image does: clients run it with docker,
// publishing ImagePort on loopback, and send the token they pass in
// $MCPSHIP_AUTH_TOKEN as a bearer token. The registry checks that the
// image's label io.modelcontextprotocol.server.name is the server's name.
func OCIPackage(ref, version string) (Package, error) {
	host, rest, _ := strings.Cut(ref, "/")
	if rest == "" || !strings.ContainsAny(host, ".:") {
		return Package{}, fmt.Errorf("the image %q must name its registry, as REGISTRY/NAMESPACE/REPOSITORY[:TAG], such as ghcr.io/OWNER/NAME", ref)
	}
	if !slices.ContainsFunc(ociRegistries, func(r string) bool {
		return host == r || strings.HasPrefix(r, ".") && strings.HasSuffix(host, r)
	}) {
		return Package{}, fmt.Errorf("the MCP Registry takes images only from docker.io, ghcr.io, quay.io, mcr.microsoft.com, *.pkg.dev and *.azurecr.io, not %s", host)
	}
	name, digest, hasDigest := strings.Cut(rest, "@")
	repo, tag, hasTag := strings.Cut(name, ":")
	switch {
	case repo == "" || strings.HasSuffix(repo, "/") || strings.ContainsAny(repo, " \t"):
		return Package{}, fmt.Errorf("the image %q has no repository name", ref)
	case hasDigest && !regexp.MustCompile(`^sha256:[a-f0-9]{64}$`).MatchString(digest):
		return Package{}, fmt.Errorf("the image %q has a digest that is not sha256:<64 hex digits>", ref)
	case hasTag && (tag == "" || tag == "latest"):
		return Package{}, fmt.Errorf("the image %q needs a version tag: the registry lists one version, not %q", ref, tag)
	case !hasTag && !hasDigest:
		if version == "" {
			return Package{}, fmt.Errorf("the image %q has no tag, and there is no version to tag it with", ref)
		}
		ref += ":" + strings.TrimPrefix(version, "v")
	}
	return Package{
		RegistryType: "oci",
		Identifier:   ref,
		RuntimeHint:  "docker",
		RuntimeArguments: []Argument{
			{Type: "named", Name: "--publish", Value: "127.0.0.1:" + ImagePort + ":" + ImagePort},
		},
		Transport: Transport{
			Type: "streamable-http",
			URL:  "http://127.0.0.1:" + ImagePort + "/mcp",
			Headers: []EnvVar{{Name: "Authorization", Value: "Bearer {" + ImageTokenEnv + "}",
				Description: "The bearer token the server requires", Required: true, Secret: true}},
		},
		Env: []EnvVar{{Name: ImageTokenEnv, Description: "A bearer token the server requires of its clients; choose a long random one", Required: true, Secret: true}},
	}, nil
}

// namePattern is the registry schema's pattern for a server name; add
// checks the names it looks up with it too, through [CheckName].
var namePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`) })

// CheckName reports whether name is a server name the registry takes:
// NAMESPACE/NAME, 3 to 200 characters.
func CheckName(name string) error {
	if len(name) < 3 || len(name) > 200 || !namePattern().MatchString(name) {
		return fmt.Errorf("the server name %q is not a registry name: it must be NAMESPACE/NAME in reverse-DNS form, such as io.github.OWNER/SERVER", name)
	}
	return nil
}

// check reports the first thing about s the registry would refuse.
func (s Server) check() error {
	if err := CheckName(s.Name); err != nil {
		return err
	}
	switch {
	case s.Version == "":
		return errors.New("the version is empty")
	case strings.ContainsAny(s.Version, "^~<>=* ") || s.Version == "latest":
		return fmt.Errorf("the version %q is a range; the registry needs one specific version", s.Version)
	}
	for _, p := range s.Packages {
		if p.RegistryType == "mcpb" {
			if u, err := url.Parse(p.Identifier); err != nil || u.Scheme != "https" || u.Host == "" {
				return fmt.Errorf("the bundle URL %q is not an https:// URL, which the registry requires", p.Identifier)
			}
			if !strings.Contains(strings.ToLower(p.Identifier), "mcp") {
				return fmt.Errorf("the bundle URL %q does not contain \"mcp\", which the registry requires (name the file *.mcpb)", p.Identifier)
			}
		}
	}
	return nil
}

// checkDescription applies the schema's limits to a description.
func checkDescription(d string) error {
	switch n := len([]rune(d)); {
	case n == 0:
		return errors.New("the description is empty; the registry requires one (at most 100 characters)")
	case n > 100:
		return fmt.Errorf("the description has %d characters; the registry allows at most 100", n)
	}
	return nil
}

// serverJSON is a new server.json, its members in the order written.
type serverJSON struct {
	Schema      string      `json:"$schema"`
	Name        string      `json:"name"`
	Title       string      `json:"title,omitempty"`
	Description string      `json:"description"`
	Repository  *repository `json:"repository,omitempty"`
	WebsiteURL  string      `json:"websiteUrl,omitempty"`
	Version     string      `json:"version"`
	Packages    []Package   `json:"packages,omitempty"`
}

type repository struct {
	URL    string `json:"url"`
	Source string `json:"source"`
}

// ServerJSON returns the server.json for s. When old, an existing
// server.json, is not empty, it is updated rather than replaced: the
// version and the packages of type "mcpb", "go" and "oci" change, and every
// other member keeps its place and its bytes. An old bundle or image
// entry whose URL or reference is the new one's but for the version (such
// as .../v1.0.0/app.mcpb for .../v1.1.0/app.mcpb, or ghcr.io/o/app:1.0.0
// for ghcr.io/o/app:1.1.0) is updated in place, keeping the author's
// fields; old entries that match none are dropped, and new ones that
// match none are added after the last such entry. ServerJSON
// refuses an old file that is not a JSON object or names another server.
func ServerJSON(old []byte, s Server) ([]byte, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(old)) == 0 {
		return newServerJSON(s)
	}
	return updateServerJSON(old, s)
}

func newServerJSON(s Server) ([]byte, error) {
	if err := checkDescription(s.Description); err != nil {
		return nil, err
	}
	doc := serverJSON{
		Schema: SchemaURL, Name: s.Name, Title: s.Title, Description: s.Description,
		WebsiteURL: s.WebsiteURL, Version: s.Version, Packages: s.Packages,
	}
	if s.Repository != "" {
		doc.Repository = &repository{URL: s.Repository, Source: repoSource(s.Repository)}
	}
	return marshal(doc, "", "  ")
}

// repoSource names the forge of a repository URL as the registry does.
func repoSource(repo string) string {
	u, err := url.Parse(repo)
	if err != nil {
		return "git"
	}
	host := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
	if name, ok := strings.CutSuffix(host, ".com"); ok && (name == "github" || name == "gitlab") {
		return name
	}
	return host
}

// marshal is json.MarshalIndent without HTML escaping, ending in a newline.
func marshal(v any, prefix, indent string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, indent)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func updateServerJSON(old []byte, s Server) ([]byte, error) {
	if !json.Valid(old) {
		var v any
		err := json.Unmarshal(old, &v)
		return nil, fmt.Errorf("the existing server.json is not valid JSON (%v); fix it or move it away", err)
	}
	doc := gjson.ParseBytes(old)
	if !doc.IsObject() {
		return nil, errors.New("the existing server.json is not a JSON object; fix it or move it away")
	}
	if name := doc.Get("name"); name.String() != s.Name {
		if !name.Exists() {
			return nil, fmt.Errorf("the existing server.json names no server; it must name %s", s.Name)
		}
		return nil, fmt.Errorf("the existing server.json is for the server %s, not %s; use its name, or write to another directory", name.String(), s.Name)
	}
	if err := checkDescription(doc.Get("description").String()); err != nil {
		return nil, fmt.Errorf("the existing server.json: %w", err)
	}
	oldVersion := doc.Get("version").String()
	out, err := sjson.SetBytes(old, "version", s.Version)
	if err != nil {
		return nil, err
	}
	l := layoutOf(out)
	pkgs, err := mergePackages(out, oldVersion, s, l)
	switch {
	case err != nil:
		return nil, err
	case pkgs == nil:
	case gjson.GetBytes(out, "packages").Exists():
		if out, err = sjson.SetRawBytes(out, "packages", pkgs); err != nil {
			return nil, err
		}
	default:
		out = appendMember(out, "packages", pkgs, l)
	}
	if !json.Valid(out) { // sjson splices text; never write what does not parse
		return nil, errors.New("updating server.json gave invalid JSON; please report this with the file")
	}
	return out, nil
}

// managed reports whether a package entry of this type is written by
// ServerJSON (and so replaced on update).
func managed(registryType string) bool {
	return registryType == "mcpb" || registryType == "go" || registryType == "oci"
}

// A layout is how a server.json is laid out, so that what is added to it
// looks like the rest.
type layout struct {
	compact bool   // all on one line
	nl      string // "\n" or "\r\n"
	key     string // the indentation of a top-level member, and of one level
	elem    string // of an element of "packages"
}

func layoutOf(doc []byte) layout {
	l := layout{compact: !bytes.Contains(bytes.TrimSpace(doc), []byte("\n")), nl: "\n", key: "  "}
	if bytes.Contains(doc, []byte("\r\n")) {
		l.nl = "\r\n"
	}
	if l.compact {
		return layout{compact: true}
	}
	if v := gjson.GetBytes(doc, "name"); v.Exists() {
		l.key = lineIndent(doc, v.Index)
	}
	l.elem = l.key + l.key
	if a := gjson.GetBytes(doc, "packages").Array(); len(a) > 0 {
		l.elem = lineIndent(doc, a[0].Index)
	}
	return l
}

// appendMember adds "key": raw as the last member of doc's object.
func appendMember(doc []byte, key string, raw []byte, l layout) []byte {
	end := bytes.LastIndexByte(doc, '}')
	last := len(bytes.TrimRight(doc[:end], " \t\r\n"))
	member := ",\n" + l.key + strconv.Quote(key) + ": "
	if l.compact {
		member = "," + strconv.Quote(key) + ":"
	}
	member = strings.ReplaceAll(member, "\n", l.nl)
	return slices.Concat(doc[:last], []byte(member), raw, doc[last:])
}

// mergePackages returns the new "packages" array of doc (nil to leave it
// as it is): the author's other packages as they were, the managed ones
// updated, dropped or added.
func mergePackages(doc []byte, oldVersion string, s Server, l layout) ([]byte, error) {
	arr := gjson.GetBytes(doc, "packages")
	if !arr.Exists() && len(s.Packages) == 0 {
		return nil, nil
	}
	if arr.Exists() && !arr.IsArray() {
		return nil, errors.New("the existing server.json has \"packages\" that is not an array; fix it or move it away")
	}
	used := make([]bool, len(s.Packages))
	var elems []string
	insertAt := -1 // where new entries go: after the last managed one
	for _, o := range arr.Array() {
		typ := o.Get("registryType").String()
		if !managed(typ) {
			elems = append(elems, o.Raw)
			continue
		}
		i := match(o, oldVersion, s, used)
		if i < 0 {
			insertAt = len(elems)
			continue // an entry of a bundle no longer built
		}
		used[i] = true
		raw, err := updatePackage(o.Raw, s.Packages[i], s.Version)
		if err != nil {
			return nil, err
		}
		elems = append(elems, raw)
		insertAt = len(elems)
	}
	var added []string
	for i, p := range s.Packages {
		if used[i] {
			continue
		}
		b, err := marshal(p, l.elem, strings.TrimPrefix(l.elem, l.key))
		if err != nil {
			return nil, err
		}
		added = append(added, strings.ReplaceAll(strings.TrimRight(string(b), "\n"), "\n", l.nl))
	}
	if insertAt < 0 {
		insertAt = len(elems)
	}
	elems = slices.Insert(elems, insertAt, added...)

	if len(elems) == 0 {
		return []byte("[]"), nil
	}
	if l.compact {
		return []byte("[" + strings.Join(elems, ",") + "]"), nil
	}
	var b strings.Builder
	b.WriteString("[" + l.nl)
	for i, e := range elems {
		b.WriteString(l.elem + e)
		if i < len(elems)-1 {
			b.WriteString(",")
		}
		b.WriteString(l.nl)
	}
	b.WriteString(l.key + "]")
	return []byte(b.String()), nil
}

// match returns the index of the unused package of s that the old entry
// o describes in an earlier version, or -1.
func match(o gjson.Result, oldVersion string, s Server, used []bool) int {
	typ, id := o.Get("registryType").String(), o.Get("identifier").String()
	for i, p := range s.Packages {
		if used[i] || p.RegistryType != typ {
			continue
		}
		if typ == "go" && p.Identifier == id {
			return i
		}
		if (typ == "mcpb" || typ == "oci") && unversioned(id, oldVersion) == unversioned(p.Identifier, s.Version) {
			return i
		}
	}
	return -1
}

// unversioned replaces the version in a bundle URL with a marker, so that
// the URLs of one bundle in two versions compare equal.
func unversioned(id, version string) string {
	if version == "" {
		return id
	}
	return strings.ReplaceAll(id, strings.TrimPrefix(version, "v"), "\x00")
}

// updatePackage sets p's identifier, hash and version in the raw entry,
// keeping the author's other members. A bundle entry that gives a
// version gets the server's new one.
func updatePackage(raw string, p Package, version string) (string, error) {
	if p.Version == "" && gjson.Get(raw, "version").Exists() {
		p.Version = version
	}
	out, err := sjson.Set(raw, "identifier", p.Identifier)
	for _, kv := range [][2]string{{"version", p.Version}, {"fileSha256", p.FileSHA256}} {
		switch {
		case err != nil:
		case kv[1] != "":
			out, err = sjson.Set(out, kv[0], kv[1])
		case gjson.Get(out, kv[0]).Exists():
			out, err = sjson.Delete(out, kv[0])
		}
	}
	return out, err
}

// lineIndent returns the spaces and tabs that start the line holding off.
func lineIndent(doc []byte, off int) string {
	if off <= 0 || off > len(doc) {
		return ""
	}
	start := bytes.LastIndexByte(doc[:off], '\n') + 1
	end := start
	for end < len(doc) && (doc[end] == ' ' || doc[end] == '\t') {
		end++
	}
	return string(doc[start:end])
}

// WriteServerJSON writes the server.json for s to file, updating the
// file if it exists (see [ServerJSON]). On any error it writes nothing.
func WriteServerJSON(file string, s Server) error {
	old, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	out, err := ServerJSON(old, s)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return writeFile(file, out)
}

// writeFile writes data to file, creating its directory if need be, so
// that a reader never sees half a file.
func writeFile(file string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(file, data, 0o644)
}

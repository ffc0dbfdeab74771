package main

import "strings"

// unsafeEnv says why an environment variable must not come from a
// request header: it changes what a program loads, finds, runs or
// trusts, so an HTTP client that sets it could run code in the server.
// It returns "" for a variable that is data to the program, such as an
// API key. Names are compared in upper case: programs differ in which
// case they read (npm reads npm_config_*).
func unsafeEnv(name string) string {
	n := strings.ToUpper(name)
	for _, class := range unsafeEnvClasses {
		for _, p := range class.prefixes {
			if strings.HasPrefix(n, p) {
				return class.why
			}
		}
		for _, s := range class.suffixes {
			if strings.HasSuffix(n, s) {
				return class.why
			}
		}
		for _, e := range class.names {
			if n == e {
				return class.why
			}
		}
	}
	return ""
}

// unsafeEnvClasses are the kinds of variable unsafeEnv refuses. Each is a
// class (a prefix or suffix) rather than a list of programs where it can
// be, so a loader, interpreter or search path not named here is caught too.
var unsafeEnvClasses = []struct {
	why                       string
	prefixes, suffixes, names []string
}{
	{why: "tells the dynamic loader what to load into the server",
		prefixes: []string{"LD_", "DYLD_", "_RLD"}},
	{why: "is a search path: it says where the server's programs, modules or libraries are found",
		suffixes: []string{"PATH", "LIB"}, names: []string{"PATHEXT", "GCONV_PATH", "LOCPATH"}},
	{why: "is a home or configuration directory the server or its interpreter reads code and settings from",
		suffixes: []string{"HOME"}, prefixes: []string{"XDG_"}, names: []string{"TMPDIR", "TMP", "TEMP"}},
	{why: "gives options or start-up code to an interpreter or runtime",
		suffixes: []string{"_OPTIONS", "OPTS", "OPT"},
		prefixes: []string{"PYTHON", "NODE_", "NPM_CONFIG_", "PERL", "RUBY", "GEM_", "BUNDLE_", "JAVA_", "_JAVA_", "JDK_", "DENO_", "BUN_", "PIP_", "UV_", "CARGO_", "RUST"},
		names:    []string{"CLASSPATH", "GOFLAGS", "GOROOT", "GOTOOLCHAIN", "GOENV", "GOPROXY", "GOSUMDB", "GONOSUMDB", "GOINSECURE", "GOPRIVATE"}},
	{why: "changes how a shell runs commands",
		prefixes: []string{"BASH_", "BASH", "ZDOTDIR", "SHELL"},
		names:    []string{"ENV", "IFS", "PS4", "PS1", "PROMPT_COMMAND", "GLOBIGNORE", "CDPATH", "COMSPEC", "EDITOR", "VISUAL", "PAGER", "BROWSER", "LESSOPEN", "LESSCLOSE"}},
	{why: "changes which programs git runs and how it connects",
		prefixes: []string{"GIT_", "SSH_"}},
	{why: "changes whom the server connects through or trusts",
		suffixes: []string{"_PROXY", "CA_BUNDLE", "CA_CERTS"},
		prefixes: []string{"SSL_", "OPENSSL_"}},
	{why: "is mcpship's own",
		prefixes: []string{"MCPSHIP_"}},
}

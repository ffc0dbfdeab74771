package main

import "testing"

func TestUnsafeEnv(t *testing.T) {
	for _, name := range []string{"LD_PRELOAD", "LD_LIBRARY_PATH", "DYLD_INSERT_LIBRARIES", "PATH", "PYTHONPATH", "NODE_PATH",
		"PERL5LIB", "RUBYLIB", "GEM_PATH", "CLASSPATH", "GOPATH", "NODE_OPTIONS", "PYTHONSTARTUP", "PYTHONHOME", "PERL5OPT",
		"RUBYOPT", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "BASH_ENV", "ENV", "IFS", "SHELLOPTS", "PS4", "GIT_SSH_COMMAND",
		"GIT_EXEC_PATH", "HOME", "MCPSHIP_AUTH_TOKEN", "npm_config_prefix", "ld_preload", "HTTPS_PROXY", "SSL_CERT_FILE", "GOFLAGS"} {
		if unsafeEnv(name) == "" {
			t.Errorf("unsafeEnv(%q) = \"\", want a reason", name)
		}
	}
	for _, name := range []string{"API_KEY", "API_TOKEN", "GITHUB_PERSONAL_ACCESS_TOKEN", "GOOGLE_API_KEY", "OPENAI_API_KEY", "SLACK_BOT_TOKEN", "DATABASE_URL"} {
		if why := unsafeEnv(name); why != "" {
			t.Errorf("unsafeEnv(%q) = %q, want \"\"", name, why)
		}
	}
}

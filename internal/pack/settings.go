package pack

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpship/mcpship/internal/manifest"
	"github.com/mcpship/mcpship/internal/mcpb"
)

// secretWords are parts of the names of settings and variables that hold
// secrets.
var secretWords = []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "PRIVATE", "AUTH"}

func looksSecret(name string) bool {
	name = strings.ToUpper(name)
	return slices.ContainsFunc(secretWords, func(w string) bool { return strings.Contains(name, w) })
}

// userSettings are a bundle's user_config and the arguments and
// environment that pass the settings to the server.
type userSettings struct {
	args   []string
	env    map[string]string
	config map[string]mcpb.UserConfig // nil for none
	secret map[string]bool            // --secret names not yet used
}

// userConfig turns o.Settings and the environment variables into the
// bundle's user_config, and the arguments and environment that pass them
// to the server.
func userConfig(o Options, srv *server) (*userSettings, error) {
	u := &userSettings{config: map[string]mcpb.UserConfig{}, secret: map[string]bool{}}
	for _, s := range o.Secrets {
		u.secret[s] = true
	}
	if len(o.Settings) > 0 && srv.tm == nil {
		return nil, fmt.Errorf("--set gives defaults to manifest inputs; an app reads its settings from environment variables: give those with --env")
	}
	for _, s := range o.Settings {
		if err := u.addSetting(srv.tm, s); err != nil {
			return nil, err
		}
	}
	vars, err := envVars(o, srv)
	if err != nil {
		return nil, err
	}
	for _, v := range vars {
		if err := u.addVar(v); err != nil {
			return nil, err
		}
	}
	for name := range u.secret {
		return nil, fmt.Errorf("--secret %s: no --set or environment variable of that name", name)
	}
	if len(u.config) == 0 {
		u.config = nil
	}
	return u, nil
}

// add adds the setting key, which what (a flag and its value) asks for.
func (u *userSettings) add(key, what string, c mcpb.UserConfig) error {
	if _, dup := u.config[key]; dup {
		return fmt.Errorf("%s would be the second user setting %q", what, key)
	}
	u.config[key] = c
	return nil
}

// addSetting adds the setting of --set s (NAME=VALUE or NAME), passed to
// serve as --set NAME=${user_config.KEY}.
func (u *userSettings) addSetting(tm *manifest.Manifest, s string) error {
	name, value, hasValue := strings.Cut(s, "=")
	in := input(tm, name)
	if in == nil {
		return fmt.Errorf("--set %s: no tool has an input %q (NAME is INPUT or TOOL.INPUT)", s, name)
	}
	c := mcpb.UserConfig{Type: "string", Title: name, Description: in.Description, Required: !hasValue}
	if c.Description == "" {
		c.Description = "Default of the input " + name + " of the tools."
	}
	switch in.Type {
	case "integer", "number":
		c.Type = "number"
	case "boolean":
		c.Type = "boolean"
	}
	if hasValue {
		// serve --set must accept it as the user could have typed it.
		if _, err := tm.SetDefault(name, value); err != nil {
			return err // it names --set NAME=VALUE
		}
		c.Default = value
		switch c.Type {
		case "number":
			c.Default, _ = strconv.ParseFloat(value, 64)
		case "boolean":
			c.Default, _ = strconv.ParseBool(value)
		}
	}
	if u.secret[name] || looksSecret(name) {
		if c.Type != "string" {
			return fmt.Errorf("--set %s: only a string setting can be kept secret, and %s is a %s", s, name, in.Type)
		}
		c.Sensitive = true
	}
	key := strings.ReplaceAll(name, ".", "_")
	if err := u.add(key, "--set "+name, c); err != nil {
		return err
	}
	u.args = append(u.args, "--set", name+"=${user_config."+key+"}")
	delete(u.secret, name)
	return nil
}

// envVars are the environment variables the user sets: --env, and with a
// manifest, every variable it passes, each of which --env must be.
func envVars(o Options, srv *server) ([]string, error) {
	vars := slices.Clone(o.Env)
	if srv.tm != nil {
		passed := slices.Clone(srv.tm.Defaults.PassEnv)
		for _, t := range srv.tm.Tools {
			passed = append(passed, t.PassEnv...)
		}
		for _, v := range o.Env {
			if !slices.Contains(passed, v) {
				return nil, fmt.Errorf("--env %s: the manifest does not pass %s to any tool; add it to passEnv", v, v)
			}
		}
		vars = append(vars, passed...)
	}
	slices.Sort(vars)
	return slices.Compact(vars), nil
}

// addVar adds the setting of the environment variable v, given to the
// server as v=${user_config.KEY}.
func (u *userSettings) addVar(v string) error {
	key := strings.ToLower(v)
	// A setting left empty is an empty variable: a default keeps the
	// host from passing the text ${user_config.KEY} instead.
	c := mcpb.UserConfig{Type: "string", Title: v, Description: "The environment variable " + v + ", given to the server.", Default: "",
		Sensitive: u.secret[v] || looksSecret(v)}
	if err := u.add(key, "--env "+v, c); err != nil {
		return err
	}
	if u.env == nil {
		u.env = map[string]string{}
	}
	u.env[v] = "${user_config." + key + "}"
	delete(u.secret, v)
	return nil
}

// input returns the first input that name (INPUT or TOOL.INPUT) gives a
// default to, or nil.
func input(m *manifest.Manifest, name string) *manifest.Input {
	tool, in, scoped := strings.Cut(name, ".")
	for _, t := range m.Tools {
		switch {
		case scoped && t.Name == tool && t.Inputs[in] != nil:
			return t.Inputs[in]
		case !scoped && t.Inputs[name] != nil:
			return t.Inputs[name]
		}
	}
	return nil
}

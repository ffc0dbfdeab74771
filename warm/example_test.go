package warm_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpship/mcpship/warm"
)

// Environment is what a type checker loads before it can answer
// anything: here, the class names its signature files declare.
type Environment struct {
	Classes []string
}

// loadEnvironment reads every .rbs file under sig/: the slow part that
// the warm Value does once, not once per call.
func loadEnvironment(ctx context.Context, root string) (*Environment, error) {
	fmt.Println("loading the environment")
	files, err := filepath.Glob(filepath.Join(root, "sig", "*.rbs"))
	if err != nil {
		return nil, err
	}
	env := &Environment{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		for _, line := range strings.Split(string(data), "\n") {
			if name, ok := strings.CutPrefix(line, "class "); ok {
				env.Classes = append(env.Classes, strings.Fields(name)[0])
			}
		}
	}
	return env, nil
}

// The environment is loaded on the first call, kept for the next, and
// loaded again after a signature file changes. In a tool's handler, the
// folder is the project root the call names.
func Example() {
	root, _ := os.MkdirTemp("", "project")
	defer os.RemoveAll(root)
	os.MkdirAll(filepath.Join(root, "sig"), 0o755)
	os.WriteFile(filepath.Join(root, "sig", "a.rbs"), []byte("class A\nend\n"), 0o644)

	envs := &warm.Value[*Environment]{
		Inputs: []string{"sig/", "Gemfile.lock", ".rigor.yml"},
		Build:  loadEnvironment,
	}
	ctx := context.Background()
	env, _ := envs.Get(ctx, root) // loads
	fmt.Println(env.Classes)
	env, _ = envs.Get(ctx, root) // kept: nothing changed
	fmt.Println(env.Classes)

	os.WriteFile(filepath.Join(root, "sig", "b.rbs"), []byte("class B\nend\n"), 0o644)
	env, _ = envs.Get(ctx, root) // loads again: sig/ has a new file
	fmt.Println(env.Classes)
	// Output:
	// loading the environment
	// [A]
	// [A]
	// loading the environment
	// [A B]
}

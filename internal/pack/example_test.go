package pack_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/mcpship/mcpship/internal/pack"
)

func ExampleWrite() {
	dir, err := os.MkdirTemp("", "pack-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	manifest := filepath.Join(dir, "mcpship.json")
	err = os.WriteFile(manifest, []byte(`{"tools": [{"name": "greet", "description": "Say hello.",
		"command": ["greeter", "{name}"], "inputs": {"name": {}}, "passEnv": ["GREETER_TOKEN"]}]}`), 0o644)
	if err != nil {
		log.Fatal(err)
	}
	bundles, err := pack.Write(filepath.Join(dir, "out"), pack.Options{
		Manifest: manifest,
		// Usually pack.Dist, pack.Release or pack.Host.
		Binaries: pack.Binaries{
			{OS: "linux", Arch: "amd64"}:   []byte("mcpship for linux"),
			{OS: "windows", Arch: "arm64"}: []byte("mcpship for windows"),
		},
		Name:        "greeter",
		Version:     "1.0.0",
		Description: "Greets people",
		Author:      "Greeter authors",
		Settings:    []string{"name=World"},
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, b := range bundles {
		m := b.Manifest
		fmt.Println(filepath.Base(b.File), m.Server.MCPConfig.Command, m.Server.MCPConfig.Args[3:])
		fmt.Printf("  %q\n  GREETER_TOKEN=%s (sensitive: %t)\n", m.Description,
			m.Server.MCPConfig.Env["GREETER_TOKEN"], m.UserConfig["greeter_token"].Sensitive)
	}
	// Output:
	// greeter_1.0.0_linux_amd64.mcpb ${__dirname}/server/mcpship [--set name=${user_config.name}]
	//   "Greets people. Needs greeter on PATH."
	//   GREETER_TOKEN=${user_config.greeter_token} (sensitive: true)
	// greeter_1.0.0_windows_arm64.mcpb ${__dirname}/server/mcpship.exe [--set name=${user_config.name}]
	//   "Greets people. Needs greeter on PATH."
	//   GREETER_TOKEN=${user_config.greeter_token} (sensitive: true)
}

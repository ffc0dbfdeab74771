package wrap_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/mcpship/mcpship/internal/wrap"
)

// Draft a manifest for yamllint from its --help, and say what was left out.
func ExampleDraft() {
	res, err := wrap.Draft(context.Background(), []string{"yamllint"}, wrap.Options{})
	if err != nil {
		log.Fatal(err) // not found, or its help could not be read
	}
	if err := os.WriteFile("mcpship.json", res.Manifest, 0o644); err != nil {
		log.Fatal(err)
	}
	for _, line := range append(res.Guessed, res.LeftOut...) {
		fmt.Println(line)
	}
}

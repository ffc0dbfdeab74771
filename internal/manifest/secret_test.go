package manifest

import "testing"

func TestHider(t *testing.T) {
	hide := hider([]string{"API_TOKEN=s3cr3t-value", "GITHUB_AUTH=ghp_abcdef", "AUTHOR=Jane Doe", "PIN_KEY=12", "PATH=/bin", "EMPTY_SECRET="})
	for in, want := range map[string]string{
		"using s3cr3t-value and ghp_abcdef": "using <hidden> and <hidden>",
		"by Jane Doe with PATH /bin":        "by Jane Doe with PATH /bin", // AUTHOR is not a secret, PATH neither
		"pin 12":                            "pin 12",                     // under 4 bytes
		"the line was cut at s3cr3t-v":      "the line was cut at <hidden>",
		"the word s3c":                      "the word s3c",
	} {
		if got := hide(in); got != want {
			t.Errorf("hide(%q) = %q, want %q", in, got, want)
		}
	}
	if got := hider([]string{"PATH=/bin"})("x /bin"); got != "x /bin" {
		t.Errorf("no secrets: %q", got)
	}
}

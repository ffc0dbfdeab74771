package installer

import "testing"

func TestUnifiedDiff(t *testing.T) {
	for _, c := range []struct{ a, b, want string }{
		{"a\n", "a\n", ""},
		{"", "a", "--- f\n+++ f\n@@ -0,0 +1 @@\n+a\n\\ No newline at end of file\n"},
		{"a\n", "a\nb\n", "--- f\n+++ f\n@@ -1 +1,2 @@\n a\n+b\n"},
		{"a", "a\n", "--- f\n+++ f\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n"},
		{"1\n2\n3\n4\n5\n6\n7\n8\n", "1\n2\n3\n4\nX\n5\n6\n7\n8\n", "--- f\n+++ f\n@@ -2,6 +2,7 @@\n 2\n 3\n 4\n+X\n 5\n 6\n 7\n"},
		{"a\r\nb\r\n", "a\r\nc\r\nb\r\n", "--- f\n+++ f\n@@ -1,2 +1,3 @@\n a\n+c\n b\n"},
		{"x\ny\nz\n", "x\nz\n", "--- f\n+++ f\n@@ -1,3 +1,2 @@\n x\n-y\n z\n"},
		{"a\nb", "a\nc", "--- f\n+++ f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"},
		{"x\ny\n", "", "--- f\n+++ f\n@@ -1,2 +0,0 @@\n-x\n-y\n"},
		{"a\na\na\n", "a\na\na\na\n", "--- f\n+++ f\n@@ -1,3 +1,4 @@\n a\n a\n a\n+a\n"},
		{"1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\n5\n6\n7\n8\n9", "--- f\n+++ f\n@@ -6,4 +6,4 @@\n 6\n 7\n 8\n-9\n+9\n\\ No newline at end of file\n"},
		{"{\n  \"a\": 1\n}\n", "{\n  \"a\": 1,\n  \"b\": 2\n}\n", "--- f\n+++ f\n@@ -1,3 +1,4 @@\n {\n-  \"a\": 1\n+  \"a\": 1,\n+  \"b\": 2\n }\n"},
	} {
		if got := unifiedDiff("f", []byte(c.a), []byte(c.b)); got != c.want {
			t.Errorf("unifiedDiff(%q, %q) =\n%s\nwant\n%s", c.a, c.b, got, c.want)
		}
	}
}

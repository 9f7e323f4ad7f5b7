package agent

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestToolKind(t *testing.T) {
	for name, want := range map[string]ToolKind{
		"read_file": KindRead, "search_text": KindSearch, "write_file": KindEdit, "edit_file": KindEdit,
		"run_command": KindExecute, "read_mcp_resource": KindFetch, "github__create_issue": KindOther,
	} {
		if got := toolKind(name); got != want {
			t.Errorf("toolKind(%q) = %q, want %q", name, got, want)
		}
	}
	for name := range builtins {
		if _, ok := builtinKinds[name]; !ok {
			t.Errorf("built-in %q has no kind in builtinKinds", name)
		}
	}
}

func TestCallLocations(t *testing.T) {
	folders := []string{"/ws"}
	for _, c := range []struct {
		name, tool, args string
		want             []string
	}{
		{"relative path joins the first folder", "read_file", `{"path":"a/b.go"}`, []string{"/ws/a/b.go"}},
		{"absolute path is cleaned", "write_file", `{"path":"/ws/x/../y.txt","content":""}`, []string{"/ws/y.txt"}},
		{"no path argument, no location", "run_command", `{"command":"ls"}`, nil},
		{"an MCP tool's path means what its server says", "fs__read_file", `{"path":"/etc/passwd"}`, nil},
		{"arguments that are not an object", "read_file", `[1]`, nil},
	} {
		if got := callLocations(folders, c.tool, json.RawMessage(c.args)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}

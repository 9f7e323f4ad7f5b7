package tools

import (
	"encoding/json"
	"github.com/agentls/agentls/mcp"
	"github.com/agentls/agentls/mcp/toolname"
	"github.com/agentls/agentls/wire"
	"reflect"
	"strings"
	"testing"
)

// kindOf is the kind a call of the tool named name plans (an MCP tool's
// when name is no built-in).
func kindOf(name string) wire.ToolKind {
	env := &Env{}
	if b, ok := Builtin(name); ok {
		return b.Plan(env, json.RawMessage(`{}`)).Kind
	}
	return FromMCP(mcp.Tool{Name: name, Server: "github", ServerTool: "create_issue"}, 0).Plan(env, json.RawMessage(`{}`)).Kind
}

func TestToolKind(t *testing.T) {
	for name, want := range map[string]wire.ToolKind{
		"read_file": wire.KindRead, "search_text": wire.KindSearch, "write_file": wire.KindEdit, "edit_file": wire.KindEdit,
		"run_command": wire.KindExecute, "read_mcp_resource": wire.KindFetch, "github__create_issue": wire.KindOther,
	} {
		if got := kindOf(name); got != want {
			t.Errorf("kind of %q = %q, want %q", name, got, want)
		}
	}
	for _, b := range builtins {
		if b.kind == "" {
			t.Errorf("built-in %q has no kind", b.def.Name)
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
		env := &Env{Workspace: &testWorkspace{folders: folders}}
		var tool Tool = FromMCP(mcp.Tool{Name: c.tool, Server: "fs", ServerTool: "read_file"}, 0)
		if b, ok := Builtin(c.tool); ok {
			tool = b
		}
		if got := tool.Plan(env, json.RawMessage(c.args)).Locations; !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}

func TestBuiltinNamesAreLegalAndSchemasAreObjects(t *testing.T) {
	want := []string{"edit_file", "find_files", "list_directory", "list_mcp_resources", "read_file", "read_mcp_resource", "run_command", "search_text", "search_tools", "write_file"}
	if got := BuiltinNames(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("BuiltinNames() = %v, want %v", got, want)
	}
	for _, b := range Builtins() {
		d := b.Def()
		var s struct {
			Type string `json:"type"`
		}
		if !toolname.Valid(d.Name) || json.Unmarshal(d.Schema, &s) != nil || s.Type != "object" || d.Description == "" {
			t.Errorf("tool %s: illegal name, bad schema or no description: %s", d.Name, d.Schema)
		}
	}
}

package mcp

import (
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// resolveOutput prepares a tool's outputSchema for checking its results,
// once per listing. A tool without one gives nil, nil. A schema that cannot
// be used (not a schema, a reference to another document, a draft the
// checker does not know) gives an error for the server's warnings: its
// results then go unchecked, as they would from a client that does not
// check (the MCP spec says clients SHOULD).
func resolveOutput(t *sdk.Tool) (*jsonschema.Resolved, error) {
	if t.OutputSchema == nil {
		return nil, nil
	}
	b, err := json.Marshal(t.OutputSchema)
	if err != nil {
		return nil, err
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("not a JSON schema: %v", err)
	}
	switch s.Schema {
	case "", "https://json-schema.org/draft/2020-12/schema", "http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft-07/schema#":
	default:
		return nil, fmt.Errorf("$schema %q: only draft-07 and draft 2020-12 are checked", s.Schema)
	}
	return s.Resolve(nil)
}

// checkStructured checks a successful result of tool against its resolved
// outputSchema and says what is wrong, or "". The MCP spec: a server MUST
// give structuredContent conforming to the schema when a tool has one.
func checkStructured(tool string, rs *jsonschema.Resolved, res *sdk.CallToolResult) string {
	if rs == nil || res.IsError {
		return ""
	}
	if res.StructuredContent == nil {
		return fmt.Sprintf("%s declares an outputSchema but its result has no structuredContent (the MCP spec requires one); the result was not used", tool)
	}
	// The SDK decoded it as generic JSON already; a round trip makes sure
	// the checker sees only JSON types.
	b, err := json.Marshal(res.StructuredContent)
	var v any
	if err == nil {
		err = json.Unmarshal(b, &v)
	}
	if err == nil {
		err = rs.Validate(v)
	}
	if err != nil {
		return fmt.Sprintf("the structuredContent of %s does not match its outputSchema: %v; the result was not used", tool, err)
	}
	return ""
}

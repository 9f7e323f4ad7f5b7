package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolDef is one tool as a server listed it, before it gets its name.
type toolDef struct {
	orig        string // the server's own name, exact
	description string // capped
	schema      json.RawMessage
	annotations *Annotations
	hash        string
	ui          string // the ui:// resource of its MCP App, or ""
	// output is the outputSchema resolved for checking results; nil when
	// the tool has none (or one that cannot be used: see warnings).
	output *jsonschema.Resolved
}

// convertTools turns a server's listing into our tool definitions: the first
// maxTools tools (in the server's order), descriptions capped at descMax
// characters, schemas kept as the server sent them. Warnings say what was
// dropped and why.
func convertTools(in []*sdk.Tool, descMax, maxTools int) (defs []toolDef, warnings []string) {
	seen := map[string]bool{}
	for _, t := range in {
		if t == nil {
			continue
		}
		if seen[t.Name] {
			warnings = append(warnings, fmt.Sprintf("tool %q is listed twice; the first one is used", t.Name))
			continue
		}
		seen[t.Name] = true
		if len(defs) == maxTools {
			continue
		}
		schema := json.RawMessage(`{"type":"object"}`)
		if t.InputSchema != nil {
			if b, err := json.Marshal(t.InputSchema); err == nil {
				schema = b
			}
		}
		ann := convertAnnotations(t)
		output, err := resolveOutput(t)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("tool %q: its outputSchema cannot be used, so its results are not checked against it: %v", t.Name, err))
		}
		defs = append(defs, toolDef{
			output:      output,
			orig:        t.Name,
			description: capDescription(t.Description, descMax),
			schema:      schema,
			annotations: ann,
			hash:        DefinitionHash(t.Description, schema, ann),
			ui:          uiResourceURI(t.Meta),
		})
	}
	if len(seen) > maxTools {
		warnings = append(warnings, fmt.Sprintf("the server lists %d tools; only the first %d are used (max_tools_per_server)", len(seen), maxTools))
	}
	return defs, warnings
}

// DefinitionHash is the hex SHA-256 of a tool's original description, input
// schema and annotations, encoded as the JSON array [description, schema] or,
// when the tool has any annotation, [description, schema, annotations].
// "Always allow" is bound to it: a server that changes a tool after it was
// allowed is asked about again, and that includes its hints: an allow given
// while a tool claimed readOnlyHint, or stored while it was destructiveHint,
// must not carry over once the server changes the claim.
func DefinitionHash(description string, schema json.RawMessage, annotations *Annotations) string {
	def := []any{description, schema}
	if annotations != nil && *annotations != (Annotations{}) {
		def = append(def, annotations)
	}
	b, _ := json.Marshal(def)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// EstimateTokens is the schema cost of a tool per turn: its name,
// description and input schema at about 4 bytes per token, which is what
// provider tokenizers average on English prose and JSON. An estimate for
// comparing servers, not a bill.
func EstimateTokens(name, description string, schema json.RawMessage) int {
	return (len(name) + len(description) + len(schema) + 3) / 4
}

// capDescription keeps at most max characters (runes). Descriptions are
// third-party text the model reads every turn: a cap bounds both the cost
// and the room for injected instructions.
func capDescription(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	const mark = "…"
	n := 0
	for i := range s {
		if n == max-1 {
			return s[:i] + mark
		}
		n++
	}
	return s
}

func convertAnnotations(t *sdk.Tool) *Annotations {
	a := t.Annotations
	if a == nil {
		return nil
	}
	return &Annotations{
		Title:           a.Title,
		ReadOnlyHint:    a.ReadOnlyHint,
		DestructiveHint: a.DestructiveHint,
		IdempotentHint:  a.IdempotentHint,
		OpenWorldHint:   a.OpenWorldHint,
	}
}

package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/wire"
)

// DocumentToolName is read_document, the tool an outside MCP client reads
// a document's text with (agentls mcp serve's resources and its
// read_document tool): the text as is, the editor's unsaved buffer when
// the file is open, reached exactly as read_file reaches it (confined to
// the workspace folders, asking before a file that holds secrets).
// agentls's own model is not offered it: it has read_file.
const DocumentToolName = "read_document"

// Document is the read_document tool.
func Document() Tool { return documentTool{} }

type documentTool struct{}

func (documentTool) Def() model.ToolDef {
	return model.ToolDef{Name: DocumentToolName,
		Description: "Read a file's whole text as the editor has it (its unsaved buffer when open, else the disk), without line numbers. Path relative to the workspace folder or absolute inside it.",
		Schema:      json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"the file"}},"required":["path"]}`)}
}

func (documentTool) Plan(env *Env, in json.RawMessage) Plan {
	p := Plan{Title: builtinTitle(DocumentToolName, in), Kind: wire.KindRead, MayAsk: readMayAsk(env, in)}
	if env.Workspace != nil {
		p.Locations = callLocations(env.Workspace.Folders(), in)
	}
	return p
}

func (documentTool) Run(ctx context.Context, env *Env, call Call, in json.RawMessage) (Result, error) {
	var a struct {
		Path string `json:"path"`
	}
	if err := json.Unmarshal(in, &a); err != nil || a.Path == "" {
		return Result{}, errors.New(`path is required: give {"path": "<a file in the workspace>"}`)
	}
	t, err := readTarget(ctx, env, call, DocumentToolName, "Read", a.Path)
	if err != nil {
		return Result{}, err
	}
	if st, err := os.Stat(t.Real); err == nil && st.IsDir() {
		return Result{}, fmt.Errorf("%s is a directory: use list_directory", a.Path)
	}
	text, err := readText(env.Workspace, t)
	var big *tooBigError
	if errors.As(err, &big) {
		return Result{}, fmt.Errorf("%s is %d bytes, more than read_document reads (%d)", a.Path, big.size, maxReadFile)
	}
	if err != nil {
		return Result{}, err
	}
	if len(text) > maxReadFile {
		return Result{}, fmt.Errorf("%s is %d bytes, more than read_document reads (%d)", a.Path, len(text), maxReadFile)
	}
	if !utf8.ValidString(text) || strings.IndexByte(text, 0) >= 0 {
		return Result{}, fmt.Errorf("%s is a binary file (%d bytes), not text", a.Path, len(text))
	}
	return Result{Text: text}, nil
}

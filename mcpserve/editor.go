package mcpserve

import (
	"context"
	"encoding/json"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/wire"
)

// Editor is what the server serves: the editor agentls sits in, or none
// (the disk of one folder). server/ implements it over LSP; DiskEditor is
// the one of `agentls mcp serve` with no editor running.
type Editor interface {
	// Name is the editor's name as it introduced itself (LSP clientInfo),
	// "" when no editor is served.
	Name() string
	// Folders are the workspace folders, absolute.
	Folders() []string
	// Offers says which of the editor's features an outside agent can be
	// given; the tools of the rest are not listed.
	Offers() Offers
	// Documents are the documents open in the editor (with agentls).
	Documents() []Document
	// Selection is the editor's latest selection or cursor; false when
	// none is known.
	Selection() (Selection, bool)
	// Diagnostics are the diagnostics the editor sent agentls, per file.
	Diagnostics() []FileDiagnostics
	// ShowDocument shows path in the editor, selecting sel when not nil.
	ShowDocument(ctx context.Context, path string, sel *wire.Range) error
	// Call runs one outside call through the agent core, with this
	// editor's cards, events and buffers.
	Call(ctx context.Context, c agent.ExternalCall) agent.ExternalResult
	// Watch calls changed with a document's path whenever one is opened,
	// changed or closed, until stop is called.
	Watch(changed func(path string)) (stop func())
	// Request sends the editor one of the agent/editor/* requests it
	// announced (Offers().Extras) and decodes its answer into result.
	Request(ctx context.Context, m wire.Method, params, result any) error
}

// Offers are the editor features an outside agent can be given.
type Offers struct {
	Documents   bool // open documents (and their resources)
	Selection   bool // the editor tells agentls its selection
	Diagnostics bool // the editor sends agentls diagnostics
	Show        bool // window/showDocument
	// Ask: a person can answer a card here. Without it nothing that asks
	// could ever run, so those tools are not listed.
	Ask bool
	// Extras are the editor extras it announced (agent/editor/*).
	Extras wire.EditorExtras
}

// Document is one open document.
type Document struct {
	Path       string `json:"path"`
	LanguageID string `json:"languageId,omitempty"`
	Version    int32  `json:"version"`
}

// Selection is a selection (or the cursor, an empty range) in a document.
type Selection struct {
	Path  string     `json:"path"`
	Range wire.Range `json:"range"`
}

// FileDiagnostics are one file's diagnostics, as LSP Diagnostic objects.
type FileDiagnostics struct {
	Path        string            `json:"path"`
	Diagnostics []json.RawMessage `json:"diagnostics"`
}

// DiskEditor serves one folder with no editor: no documents, selection,
// diagnostics or showDocument; calls go through core with approver
// (nil: nobody can be asked, so the tools that ask are not listed).
func DiskEditor(core *agent.Core, folder string, approver agent.Approver) Editor {
	return &diskEditor{core: core, folder: folder, approver: approver}
}

type diskEditor struct {
	core     *agent.Core
	folder   string
	approver agent.Approver
}

func (d *diskEditor) Name() string                   { return "" }
func (d *diskEditor) Folders() []string              { return []string{d.folder} }
func (d *diskEditor) Offers() Offers                 { return Offers{Ask: d.approver != nil} }
func (d *diskEditor) Documents() []Document          { return nil }
func (d *diskEditor) Selection() (Selection, bool)   { return Selection{}, false }
func (d *diskEditor) Diagnostics() []FileDiagnostics { return nil }
func (d *diskEditor) Watch(func(string)) func()      { return func() {} }
func (d *diskEditor) ShowDocument(context.Context, string, *wire.Range) error {
	return errNoEditor
}
func (d *diskEditor) Request(context.Context, wire.Method, any, any) error { return errNoEditor }
func (d *diskEditor) Call(ctx context.Context, c agent.ExternalCall) agent.ExternalResult {
	var ap agent.Approver = nobody{}
	if d.approver != nil {
		ap = d.approver
	}
	return d.core.CallTool(ctx, c, agent.TaskIO{Approver: ap, Workspace: agent.DiskWorkspace(d.folder)})
}

// nobody is the approver where no person can answer: the model (here the
// outside agent) is told so, rather than that the user said no.
type nobody struct{}

func (nobody) RequestApproval(context.Context, wire.Approval) (string, error) {
	return "", agent.ErrNobodyToAsk
}

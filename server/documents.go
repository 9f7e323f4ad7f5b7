package server

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/agentls/agentls/wire"
)

// document is one open buffer, with the text the editor has, saved or not.
type document struct {
	uri     string
	path    string // "" for non-file URIs (untitled:)
	version int32
	text    string
	order   int // open order, for "the first open document"
}

// documents are the open buffers, keyed by normalized path (or raw URI for
// non-file URIs), so that file:///a/./b and file:///a/b are one document.
type documents struct {
	mu   sync.Mutex
	m    map[string]*document
	next int
}

func docKey(uri string) string {
	if p, ok := uriToPath(uri); ok {
		return p
	}
	return uri
}

func (d *documents) open(uri string, version int32, text string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.m == nil {
		d.m = map[string]*document{}
	}
	path, _ := uriToPath(uri)
	d.next++
	d.m[docKey(uri)] = &document{uri: uri, path: path, version: version, text: text, order: d.next}
}

func (d *documents) close(uri string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.m, docKey(uri))
}

// get returns a copy of the open document for a URI.
func (d *documents) get(uri string) (document, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	doc, ok := d.m[docKey(uri)]
	if !ok {
		return document{}, false
	}
	return *doc, true
}

// byPath returns a copy of the open document for an absolute path.
func (d *documents) byPath(path string) (document, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	doc, ok := d.m[filepath.Clean(path)]
	if !ok {
		return document{}, false
	}
	return *doc, true
}

// list is every open document, in open order.
func (d *documents) list() []document {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]document, 0, len(d.m))
	for _, doc := range d.m {
		out = append(out, *doc)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].order < out[j].order })
	return out
}

// first is the earliest opened document still open.
func (d *documents) first() (document, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var all []*document
	for _, doc := range d.m {
		all = append(all, doc)
	}
	if len(all) == 0 {
		return document{}, false
	}
	sort.Slice(all, func(i, j int) bool { return all[i].order < all[j].order })
	return *all[0], true
}

// change applies content changes in order: a change with a range edits that
// range (UTF-16 positions), one without replaces the whole text.
func (d *documents) change(uri string, version int32, changes []contentChange) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	doc, ok := d.m[docKey(uri)]
	if !ok {
		return fmt.Errorf("didChange for %s, which is not open", uri)
	}
	text := doc.text
	for i, c := range changes {
		if c.Range == nil {
			text = c.Text
			continue
		}
		start, err := offset(text, c.Range.Start)
		if err != nil {
			return fmt.Errorf("didChange %s: change %d: start: %w", uri, i, err)
		}
		end, err := offset(text, c.Range.End)
		if err != nil {
			return fmt.Errorf("didChange %s: change %d: end: %w", uri, i, err)
		}
		if end < start {
			return fmt.Errorf("didChange %s: change %d: range ends before it starts", uri, i)
		}
		text = text[:start] + c.Text + text[end:]
	}
	doc.text = text
	doc.version = version
	return nil
}

// position is an LSP position: 0-based line, UTF-16 code units.
type position = wire.Position

// lspRange is an LSP range.
type lspRange = wire.Range

type contentChange struct {
	Range *lspRange `json:"range"`
	Text  string    `json:"text"`
}

// offset converts an LSP position to a byte offset in text. A character
// past the end of its line clamps to the line's end, a line past the end of
// the text to the text's end (as LSP says).
func offset(text string, p position) (int, error) {
	if p.Line < 0 || p.Character < 0 {
		return 0, fmt.Errorf("negative position %d:%d", p.Line, p.Character)
	}
	lineStart := 0
	for line := 0; line < p.Line; line++ {
		i := strings.IndexByte(text[lineStart:], '\n')
		if i < 0 {
			return len(text), nil
		}
		lineStart += i + 1
	}
	lineEnd := len(text)
	if i := strings.IndexByte(text[lineStart:], '\n'); i >= 0 {
		lineEnd = lineStart + i
	}
	units, off := 0, lineStart
	for off < lineEnd && units < p.Character {
		r, size := utf8.DecodeRuneInString(text[off:])
		units += utf16.RuneLen(r) // an invalid byte is RuneError: one unit
		off += size
	}
	return off, nil
}

// endPosition is the LSP position just past the end of text.
func endPosition(text string) position {
	line := strings.Count(text, "\n")
	last := text[strings.LastIndexByte(text, '\n')+1:]
	chars := 0
	for _, r := range last {
		chars += utf16.RuneLen(r)
	}
	return position{Line: line, Character: chars}
}

// textInRange returns the text of r in text.
func textInRange(text string, r lspRange) string {
	start, err1 := offset(text, r.Start)
	end, err2 := offset(text, r.End)
	if err1 != nil || err2 != nil || end < start {
		return ""
	}
	return text[start:end]
}

// lineText returns line n of text, without its line ending.
func lineText(text string, n int) string {
	start, _ := offset(text, position{Line: n})
	end := len(text)
	if i := strings.IndexByte(text[start:], '\n'); i >= 0 {
		end = start + i
	}
	return strings.TrimSuffix(text[start:end], "\r")
}

type didOpenParams struct {
	TextDocument struct {
		URI     string `json:"uri"`
		Version int32  `json:"version"`
		Text    string `json:"text"`
	} `json:"textDocument"`
}

type didChangeParams struct {
	TextDocument struct {
		URI     string `json:"uri"`
		Version int32  `json:"version"`
	} `json:"textDocument"`
	ContentChanges []contentChange `json:"contentChanges"`
}

type textDocumentParams struct {
	TextDocument struct {
		URI string `json:"uri"`
	} `json:"textDocument"`
}

func (s *Server) didOpen(p didOpenParams) {
	s.docs.open(p.TextDocument.URI, p.TextDocument.Version, p.TextDocument.Text)
	s.approvals.adopt(p.TextDocument.URI)
	s.mcp.changed(p.TextDocument.URI)
}

func (s *Server) didChange(p didChangeParams) {
	if err := s.docs.change(p.TextDocument.URI, p.TextDocument.Version, p.ContentChanges); err != nil {
		s.logMessage(logWarning, "agentls: "+err.Error())
	}
	s.mcp.changed(p.TextDocument.URI)
}

func (s *Server) didClose(p textDocumentParams) {
	s.docs.close(p.TextDocument.URI)
	s.mcp.changed(p.TextDocument.URI)
}

package server

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/agentls/agentls/wire"
)

func TestRunPromptComesFromTheRangeWhenAbsent(t *testing.T) {
	s := New(Options{})
	uri := "file:///w/main.go"
	s.docs.open(uri, 1, "package main\n\n\t// agent: add error handling\nfunc main() {}\n")
	doc := &wire.TextDocument{URI: uri}
	rng := func(l1, c1, l2, c2 int) *lspRange {
		return &lspRange{Start: position{Line: l1, Character: c1}, End: position{Line: l2, Character: c2}}
	}
	diag := json.RawMessage(`{"range":{"start":{"line":3,"character":0},"end":{"line":3,"character":4}},"message":"main redeclared"}`)
	tests := []struct {
		name    string
		p       runParams
		want    string
		wantErr bool
	}{
		{name: "an explicit prompt wins", p: runParams{Prompt: "explain", TextDocument: doc, Range: rng(0, 0, 0, 7)}, want: "explain"},
		{name: "the selected text", p: runParams{TextDocument: doc, Range: rng(0, 0, 0, 12)}, want: "package main"},
		{name: "an agent: directive on the line of an empty range", p: runParams{TextDocument: doc, Range: rng(2, 3, 2, 3)}, want: "add error handling"},
		{name: "diagnostics ask for a fix", p: runParams{TextDocument: doc, Range: rng(3, 0, 3, 0), Diagnostics: []json.RawMessage{diag}}, want: "Fix these diagnostics:\nline 4: main redeclared"},
		{name: "nothing to run is an error that says how", p: runParams{TextDocument: doc, Range: rng(0, 0, 0, 0)}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _, err := s.runRequest(tt.p)
			if tt.wantErr {
				if err == nil || !strings.Contains(err.Error(), "agent:") {
					t.Fatalf("err = %v, want one naming the ways to give a prompt", err)
				}
				return
			}
			if err != nil || req.Prompt != tt.want {
				t.Fatalf("prompt = %q, %v; want %q", req.Prompt, err, tt.want)
			}
			if req.Document != "/w/main.go" {
				t.Errorf("document = %q", req.Document)
			}
		})
	}
}

func TestWorkspaceFoldersComeFromInitialize(t *testing.T) {
	wd, _ := os.Getwd()
	tests := []struct {
		name   string
		params string
		want   []string
	}{
		{"workspaceFolders first", `{"workspaceFolders":[{"uri":"file:///a"},{"uri":"file:///b%20c"}],"rootUri":"file:///r","rootPath":"/p"}`, []string{"/a", "/b c"}},
		{"then rootUri", `{"workspaceFolders":null,"rootUri":"file:///r/./x","rootPath":"/p"}`, []string{"/r/x"}},
		{"then rootPath", `{"rootUri":null,"rootPath":"/p"}`, []string{"/p"}},
		{"then the current directory", `{}`, []string{wd}},
		{"a non-file rootUri is no folder", `{"rootUri":"untitled:x"}`, []string{wd}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(Options{})
			if _, err := s.requests["initialize"](context.Background(), json.RawMessage(tt.params)); err != nil {
				t.Fatal(err)
			}
			if got := (&workspace{s: s}).Folders(); strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("folders = %q, want %q", got, tt.want)
			}
		})
	}
}

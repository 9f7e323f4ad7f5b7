package mcpserve

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The open documents are resources too (file:// URIs, their text the
// editor's unsaved buffer, read through the same gate as read_document):
// opening or closing one changes the list (notifications/resources/
// list_changed), a change to one notifies its subscribers
// (notifications/resources/updated).

// fileURI is path's file:// URI.
func fileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// uriPath is a file:// URI's path, or "".
func uriPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || (u.Host != "" && u.Host != "localhost") {
		return ""
	}
	return filepath.FromSlash(u.Path)
}

// serveResources keeps srv's resources the open documents until stop.
func (s *Server) serveResources(ctx context.Context, srv *sdk.Server, transport string) (stop func()) {
	if !s.ed.Offers().Documents {
		return func() {}
	}
	var mu sync.Mutex
	listed := map[string]bool{}
	// relist makes the resources the open documents inside the folders
	// now, and returns those documents' paths (a map nobody changes after).
	relist := func() map[string]bool {
		mu.Lock()
		defer mu.Unlock()
		now := map[string]bool{}
		for _, d := range s.openDocuments() {
			now[d.Path] = true
			if !listed[d.Path] {
				srv.AddResource(&sdk.Resource{URI: fileURI(d.Path), Name: filepath.Base(d.Path), Title: d.Path,
					Description: "open in the editor (" + d.LanguageID + "): its unsaved text", MIMEType: "text/plain"},
					s.readResource(transport))
			}
		}
		var gone []string
		for p := range listed {
			if !now[p] {
				gone = append(gone, fileURI(p))
			}
		}
		if len(gone) > 0 {
			srv.RemoveResources(gone...)
		}
		listed = now
		return now
	}
	relist()
	return s.ed.Watch(func(path string) {
		// A document outside the folders is never listed, read or told
		// of: not even that it changed. relist has just resolved every
		// open document's path; only a path it did not list (a document
		// closed now) is resolved again.
		if !relist()[path] && !s.within(path) {
			return
		}
		if err := srv.ResourceUpdated(ctx, &sdk.ResourceUpdatedNotificationParams{URI: fileURI(path)}); err != nil {
			s.opts.Logf("agentls mcp serve: resource update: %v", err)
		}
	})
}

// readResource reads an open document through the core's read_document.
func (s *Server) readResource(transport string) sdk.ResourceHandler {
	return func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		p := uriPath(req.Params.URI)
		if p == "" {
			return nil, sdk.ResourceNotFoundError(req.Params.URI)
		}
		c := s.connOf(transport, req.Session, clientName(req.ClientInfo()))
		in, _ := json.Marshal(map[string]string{"path": p})
		text, isErr := c.call(ctx, c.client(req.ClientInfo()), "read_document", in)
		if isErr {
			return nil, &readError{text}
		}
		return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: text}}}, nil
	}
}

// readError is a refused or failed read, as the core said it.
type readError struct{ msg string }

func (e *readError) Error() string { return e.msg }

// subscribe accepts a subscription only to a file inside the workspace
// folders (open now or later): a client learns nothing of the documents
// outside them, not even when one changes.
func (s *Server) subscribe(_ context.Context, req *sdk.SubscribeRequest) error {
	if p := uriPath(req.Params.URI); p == "" || !s.within(p) {
		return fmt.Errorf("%s is not a file inside the workspace folders (%s): only those are served as resources",
			req.Params.URI, strings.Join(s.ed.Folders(), ", "))
	}
	return nil
}

package server

import (
	"context"
	"errors"
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/trust"
)

// openURL sends the user to an http(s) URL (an MCP server's URL question,
// a remote server's OAuth authorization page): window/showDocument with
// external: true when the client announced it, else, or when the client
// could not open it (Neovim 0.7.2 answers -32601), a window/showMessage
// with the URL to open by hand.
func (s *Server) openURL(ctx context.Context, u string) error {
	if !agent.IsWebPage(u) {
		// A command: or file: URI handed to showDocument would run or open
		// something in the editor rather than a page in the browser.
		return fmt.Errorf("agentls opens only http and https URLs, not %s", trust.Visible(u))
	}
	s.mu.Lock()
	showDocument := s.client.showDocument
	s.mu.Unlock()
	if showDocument && s.conn != nil {
		var res protocol.ShowDocumentResult
		err := s.conn.Call(ctx, protocol.MethodShowDocument,
			&protocol.ShowDocumentParams{URI: protocol.URI(u), External: true}, &res)
		switch {
		case err == nil && res.Success:
			return nil
		case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
			return err
		case err != nil && !isMethodNotFound(err):
			s.logMessage(logWarning, "agentls: window/showDocument failed ("+err.Error()+"); the URL is in a message instead")
		}
	}
	s.showMessage(logInfo, "agentls: open this URL in your browser: "+trust.Visible(u))
	return nil
}

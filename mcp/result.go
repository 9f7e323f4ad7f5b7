package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// convertResult turns a tool result into text for the model: text content
// joined, images, audio and blobs described rather than inlined, isError as
// an ERROR: line, the whole capped at max bytes.
func convertResult(server string, res *sdk.CallToolResult, max int) Result {
	var parts []string
	for _, c := range res.Content {
		parts = append(parts, describeContent(c))
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	text := strings.Join(parts, "\n")
	if res.IsError {
		return errorResult(server, capText(text, max))
	}
	return Result{Text: capText(text, max)}
}

func describeContent(c sdk.Content) string {
	switch c := c.(type) {
	case *sdk.TextContent:
		return c.Text
	case *sdk.ImageContent:
		return fmt.Sprintf("[%s, %s]", orUnknown(c.MIMEType, "image"), byteSize(len(c.Data)))
	case *sdk.AudioContent:
		return fmt.Sprintf("[%s, %s]", orUnknown(c.MIMEType, "audio"), byteSize(len(c.Data)))
	case *sdk.ResourceLink:
		return fmt.Sprintf("[resource link: %s]", c.URI)
	case *sdk.EmbeddedResource:
		if c.Resource == nil {
			return "[embedded resource]"
		}
		if c.Resource.Text != "" {
			return c.Resource.Text
		}
		return fmt.Sprintf("[resource %s: %s, %s]", c.Resource.URI, orUnknown(c.Resource.MIMEType, "binary"), byteSize(len(c.Resource.Blob)))
	}
	return fmt.Sprintf("[%T content]", c)
}

func orUnknown(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// byteSize is a size a person reads at a glance: "512 B", "3 KB", "19.1 MB".
func byteSize(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%d KB", (n+512)/1024)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1024*1024))
}

// capText keeps at most max bytes of s (on a character boundary) and says how
// much was cut. Results are third-party text the model reads: the cap bounds
// context cost and the room for injected instructions.
func capText(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n[result cut: %s of %s not shown; result_max_bytes is %d]", byteSize(len(s)-cut), byteSize(len(s)), max)
}

// errorResult is what every failure looks like to the model and the user.
func errorResult(server, what string) Result {
	return Result{Text: "ERROR: " + server + ": " + what, IsError: true}
}

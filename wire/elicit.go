package wire

import "encoding/json"

// ElicitMode is how an MCP server asks: a form, or a URL to open.
type ElicitMode string

// The elicitation modes of MCP 2025-11-25.
const (
	ElicitForm ElicitMode = "form"
	ElicitURL  ElicitMode = "url"
)

// The option ids of an elicitation approval (docs/protocol.md section 4).
// A card offers OptionDecline always; OptionAccept ("Submit" for a
// client that shows the form and sends its content, "Open" for a URL) and
// OptionAcceptDefaults only when they can be answered; one OptionChoice
// prefix + index per value of a form's single choice field.
const (
	OptionAccept         = "accept"
	OptionAcceptDefaults = "accept_defaults"
	OptionChoicePrefix   = "choice_"
	OptionDecline        = "decline"
)

// Elicitation is what an MCP server asks the user (MCP elicitation/create):
// a message and a flat form of fields, or a URL to open. Every string in it
// is the server's, untrusted: a front escapes it before showing it.
type Elicitation struct {
	Mode    ElicitMode    `json:"mode"`
	Message string        `json:"message"`
	Fields  []ElicitField `json:"fields,omitempty"`
	URL     string        `json:"url,omitempty"`
}

// ElicitField is one property of a form: its type is string, number,
// integer, boolean, or array (a multi-select of Choices).
type ElicitField struct {
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	Type        string          `json:"type"`
	Format      string          `json:"format,omitempty"` // email, uri, date, date-time
	Choices     []ElicitChoice  `json:"choices,omitempty"`
	Default     json.RawMessage `json:"default,omitempty"`
	Required    bool            `json:"required,omitempty"`
	Minimum     *float64        `json:"minimum,omitempty"`
	Maximum     *float64        `json:"maximum,omitempty"`
	MinLength   *int            `json:"minLength,omitempty"`
	MaxLength   *int            `json:"maxLength,omitempty"`
}

// ElicitChoice is one allowed value of a choice field and its label.
type ElicitChoice struct {
	Value string `json:"value"`
	Title string `json:"title,omitempty"`
}

// ElicitAction is how the user answered an elicitation.
type ElicitAction string

// The answers of MCP 2025-11-25.
const (
	ElicitAccept  ElicitAction = "accept"
	ElicitDecline ElicitAction = "decline"
	ElicitCancel  ElicitAction = "cancel"
)

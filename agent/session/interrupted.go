package session

import (
	"strings"

	"github.com/agentls/agentls/agent/model"
)

// A turn that was cancelled or failed, or that agentls stopped in (a crash,
// a kill), ends in the stored history with an interrupted assistant message
// (model.Message.Interrupted): the answer as far as it streamed, possibly
// nothing. It is sent once, visibly: its text says it was cut off and why.
// Fronts that retry (an ACP client re-sending the cancelled prompt ahead
// of the next one, a user asking the same again) are not sent the prompt
// twice: a prompt that starts with the interrupted turn's prompt replaces
// that turn when nothing of it ran (no tool calls), or, when something did,
// loses that leading copy of it.

// InterruptedNote is what the model is told about an interrupted answer.
func InterruptedNote(reason string, empty bool) string {
	why := interruptedWhy(reason)
	if empty {
		return "[agentls: no answer: " + why + " before the answer began.]"
	}
	return "\n\n[agentls: this answer was cut off here: " + why + ".]"
}

// renderInterrupted is m as sent: its text with the note after it.
func renderInterrupted(m model.Message) model.Message {
	text := model.TextOf(m.Content)
	var content []model.Block
	for _, b := range m.Content {
		if b.Type != "text" {
			content = append(content, b)
		}
	}
	note := InterruptedNote(m.Interrupted, strings.TrimSpace(text) == "")
	if strings.TrimSpace(text) == "" {
		text = ""
	}
	content = append(content, model.Block{Type: "text", Text: text + note})
	return model.Message{Role: m.Role, Content: content, Interrupted: m.Interrupted}
}

// settleInterrupted is stored as sent: interrupted answers rendered, and a
// prompt that repeats an interrupted (or unanswered) turn's prompt at its
// start not sent twice.
func settleInterrupted(stored []model.Message) []model.Message {
	out := make([]model.Message, 0, len(stored))
	turn := -1 // index in out of the current turn's prompt
	for _, m := range stored {
		if StartsTurn(m) {
			if n := len(out); turn >= 0 && n > turn && endsInterrupted(out[n-1]) {
				prev, _ := PromptText(out[turn])
				next, _ := PromptText(m)
				if lead := strings.TrimSpace(prev); lead != "" && strings.HasPrefix(strings.TrimSpace(next), lead) {
					if ranNothing(out[turn:]) {
						out = out[:turn]
					} else {
						m = cutLead(m, lead)
					}
				}
			}
			turn = len(out)
		}
		if m.Role == "assistant" && m.Interrupted == InterruptedTooLong && turn >= 0 && ranNothing(out[turn:]) {
			// A prompt the model refused as too long for its window, even
			// compacted, is not sent again: each later turn would carry it
			// and be refused the same way.
			out = out[:turn]
			turn = -1
			continue
		}
		if m.Role == "assistant" && m.Interrupted != "" {
			m = renderInterrupted(m)
		}
		out = append(out, m)
	}
	return out
}

// endsInterrupted says whether m ends a turn that did not finish: an
// interrupted answer, or a prompt no answer followed.
func endsInterrupted(m model.Message) bool {
	return m.Interrupted != "" || StartsTurn(m)
}

// ranNothing says whether a turn is its prompt and at most an answer
// without tool calls.
func ranNothing(turn []model.Message) bool {
	for _, m := range turn {
		for _, b := range m.Content {
			if b.Type == "tool_use" || b.Type == "tool_result" {
				return false
			}
		}
	}
	return true
}

// cutLead is prompt m without its leading copy of lead.
func cutLead(m model.Message, lead string) model.Message {
	content := append([]model.Block(nil), m.Content...)
	for i, b := range content {
		if b.Type != "text" {
			continue
		}
		rest := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(b.Text), lead))
		if rest == "" {
			rest = "[agentls: the user sent the interrupted turn's prompt again: carry on with it.]"
		}
		content[i].Text = rest
		break
	}
	return model.Message{Role: m.Role, Content: content}
}

// InterruptedStatus says, for the user, how an interrupted answer ended.
func InterruptedStatus(m model.Message) string {
	why := interruptedWhy(m.Interrupted)
	if strings.TrimSpace(model.TextOf(m.Content)) == "" {
		return "no answer: " + why + " before the answer began"
	}
	return "the answer above was cut off: " + why
}

// interruptedWhy is why a turn was interrupted, in words.
func interruptedWhy(reason string) string {
	switch reason {
	case InterruptedError:
		return "the request to the model failed"
	case InterruptedStopped:
		return "agentls stopped (a crash or a kill) before the turn finished"
	case InterruptedTooLong:
		return "the model refused the request as too long for its context window"
	case InterruptedMaxTokens:
		return "the model spent its whole output budget (max_tokens)"
	case InterruptedRefused:
		return "the model declined to answer"
	}
	return "the user cancelled the turn"
}

// StartsTurn reports whether m is a user prompt (not tool results).
func StartsTurn(m model.Message) bool {
	return m.Role == "user" && len(m.Content) > 0 && m.Content[0].Type != "tool_result"
}

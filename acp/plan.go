package acp

import (
	"regexp"
	"slices"
	"strings"
)

// The model states a plan as a Markdown task list in its answer, one step a
// line: "- [ ] step" (pending), "- [~] step" (in progress), "- [x] step"
// (completed). agentls offers no plan tool: a list costs the model nothing
// to learn, where a tool's definition would be sent with every request.
// Each list the answer writes is the whole plan (ACP's plan update replaces
// the one before); docs/protocol.md section 8 says so.

// planEntry is one PlanEntry. The model's list carries no priority, so
// every step is "medium".
type planEntry struct {
	Content  string `json:"content"`
	Priority string `json:"priority"`
	Status   string `json:"status"`
}

// planStep is one line of a Markdown task list: its mark and its text.
var planStep = regexp.MustCompile(`^\s*[-*+]\s+\[([ xX~])\]\s+(\S.*?)\s*$`)

// planStatuses maps a task list mark to ACP's plan entry status.
var planStatuses = map[string]string{" ": "pending", "~": "in_progress", "x": "completed", "X": "completed"}

// planOf is the last task list in text (lines of whole steps, in a row),
// or nil when text holds none.
func planOf(text string) []planEntry {
	var last, cur []planEntry
	for _, line := range strings.Split(text, "\n") {
		if m := planStep.FindStringSubmatch(line); m != nil {
			cur = append(cur, planEntry{Content: m[2], Priority: "medium", Status: planStatuses[m[1]]})
			continue
		}
		if len(cur) > 0 {
			last, cur = cur, nil
		}
	}
	if len(cur) > 0 {
		last = cur
	}
	return last
}

// planner follows one answer's text as it streams and says when its plan
// changed: a list counts once it is whole (a line after it, or the end of
// the answer), so a plan is never sent with only its first steps.
type planner struct {
	text strings.Builder
	sent []planEntry
}

// add takes one text delta; it returns the plan when the lists now whole
// state one that differs from the plan last sent.
func (p *planner) add(delta string) []planEntry {
	p.text.WriteString(delta)
	s := p.text.String()
	whole := strings.Split(s[:strings.LastIndexByte(s, '\n')+1], "\n")
	whole = whole[:len(whole)-1] // the split's last is what follows the last newline
	n := len(whole)
	for n > 0 && planStep.MatchString(whole[n-1]) {
		n-- // a list still open at the end: not yet
	}
	return p.changed(strings.Join(whole[:n], "\n"))
}

// end is the end of the answer (a tool call or the turn's end follows): its
// last line counts too, and the next answer starts a new text.
func (p *planner) end() []planEntry {
	plan := p.changed(p.text.String())
	p.text.Reset()
	return plan
}

func (p *planner) changed(text string) []planEntry {
	plan := planOf(text)
	if plan == nil || slices.Equal(plan, p.sent) {
		return nil
	}
	p.sent = plan
	return plan
}

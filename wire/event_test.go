package wire

import (
	"encoding/json"
	"testing"
)

// TestEventParamsCarryEveryFieldOfTheirType marshals an event of each type
// with every field zero and checks that each field docs/protocol.md
// section 3 lists for the type is there, and that nothing of another type
// or of ACP only leaks in.
func TestEventParamsCarryEveryFieldOfTheirType(t *testing.T) {
	always := []string{"taskId", "sessionId", "seq", "type"}
	tests := []struct {
		typ    EventType
		fields []string
	}{
		{EventText, []string{"delta"}},
		{EventReasoning, []string{"delta"}},
		{EventToolCall, []string{"toolCallId", "tool", "title", "arguments", "status"}},
		{EventToolResult, []string{"toolCallId", "status", "output", "isError"}},
		{EventApproval, []string{"approvalId", "state"}},
		{EventStatus, []string{"message", "mode"}},
		{EventDone, []string{"stopReason", "text", "usage", "mode"}},
	}
	for _, tt := range tests {
		b, err := json.Marshal(EventParams(Event{Type: tt.typ, Kind: KindRead, Locations: []string{"/a"}, Images: []Image{{MIMEType: "image/png"}}}))
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]json.RawMessage
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		want := append(append([]string{}, always...), tt.fields...)
		for _, k := range want {
			if _, ok := got[k]; !ok {
				t.Errorf("%s event %s lacks %q", tt.typ, b, k)
			}
		}
		if len(got) != len(want) {
			t.Errorf("%s event %s has %d fields, want exactly %v", tt.typ, b, len(got), want)
		}
	}
}

// TestEventParamsKeepWhatIsSet checks the optional fields and the values
// that come through.
func TestEventParamsKeepWhatIsSet(t *testing.T) {
	tests := []struct {
		e    Event
		want string
	}{
		{Event{Type: EventToolCall, TaskID: "t1", SessionID: "s1", Seq: 2, ToolCallID: "c1", Tool: "fs__read", Server: "fs", Title: "read", Arguments: json.RawMessage(`{"path":"a"}`), Status: StatusRunning, Message: "1/2: half"},
			`{"taskId":"t1","sessionId":"s1","seq":2,"type":"tool_call","toolCallId":"c1","tool":"fs__read","server":"fs","title":"read","arguments":{"path":"a"},"status":"running","message":"1/2: half"}`},
		{Event{Type: EventToolCall, Status: StatusPending},
			`{"taskId":"","sessionId":"","seq":0,"type":"tool_call","toolCallId":"","tool":"","title":"","arguments":{},"status":"pending"}`},
		{Event{Type: EventApproval, ApprovalID: "a1", State: ApprovalResolved, OptionID: "allow_once"},
			`{"taskId":"","sessionId":"","seq":0,"type":"approval","approvalId":"a1","state":"resolved","optionId":"allow_once"}`},
		{Event{Type: EventDone, StopReason: StopError, Message: "boom", Usage: &Usage{InputTokens: 3, OutputTokens: 4}},
			`{"taskId":"","sessionId":"","seq":0,"type":"done","stopReason":"error","text":"","usage":{"inputTokens":3,"outputTokens":4,"cacheReadTokens":0,"cacheWriteTokens":0},"error":"boom","message":"boom","mode":""}`},
		{Event{Type: "prompt", Text: "hi"}, `{"taskId":"","sessionId":"","seq":0,"type":"prompt","text":"hi"}`},
	}
	for _, tt := range tests {
		b, err := json.Marshal(EventParams(tt.e))
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tt.want {
			t.Errorf("EventParams(%+v)\n got %s\nwant %s", tt.e, b, tt.want)
		}
	}
}

package jsonrpc

import "math"

// rules are a protocol's settings.
type rules struct {
	framing  framing
	cancel   string // the notification that cancels a request in flight
	cancelID string // the member of its params that names the request
	maxID    int64  // the largest integer id
}

func (p Protocol) rules() rules {
	if p == ACP {
		return rules{framing: lines{}, cancel: "$/cancel_request", cancelID: "requestId", maxID: math.MaxInt64}
	}
	return rules{framing: headers{}, cancel: "$/cancelRequest", cancelID: "id", maxID: math.MaxInt32}
}

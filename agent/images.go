package agent

import (
	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/wire"
)

// wireImages are a tool_result's images for its event: ACP shows them,
// the LSP event leaves them out (its output names them).
func wireImages(in []model.Image) []wire.Image {
	if len(in) == 0 {
		return nil
	}
	out := make([]wire.Image, len(in))
	for i, im := range in {
		out[i] = wire.Image{MIMEType: im.MIMEType, Data: im.Data}
	}
	return out
}

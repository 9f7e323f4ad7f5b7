package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/trust"
	"github.com/agentls/agentls/wire"
)

// ProposePlanName is the tool a plan-mode session ends with: the model's
// plan, put to the user on a card. It is offered only in plan mode.
const ProposePlanName = "propose_plan"

type proposePlanArgs struct {
	Plan string `json:"plan" jsonschema:"the plan in Markdown: the steps in order, the files each one changes and the commands each one runs"`
}

var proposePlanTool = newBuiltin(builtin{kind: wire.KindOther, gated: true},
	ProposePlanName, "The session is in plan mode (read-only): once you have read enough, call this with your plan. The user sees it on a card: if they accept it, the session leaves plan mode and you carry the plan out in the same turn; if not, keep planning.", proposePlan)

// ProposePlan is the propose_plan tool.
func ProposePlan() Tool { return proposePlanTool }

// PlanDef is propose_plan's definition, offered in plan mode.
func PlanDef() model.ToolDef { return proposePlanTool.def }

// The options of a plan card.
var (
	AcceptPlan = wire.ApprovalOption{OptionID: string(wire.OptionAllowOnce), Name: "Accept the plan and carry it out (mode: ask)", Kind: wire.OptionAllowOnce}
	KeepPlan   = wire.ApprovalOption{OptionID: string(wire.OptionRejectOnce), Name: "Keep planning", Kind: wire.OptionRejectOnce}
)

func proposePlan(ctx context.Context, env *Env, call Call, a *proposePlanArgs) (string, error) {
	if m := env.mode(); m != wire.ModePlan {
		return "", fmt.Errorf("the session is in %s mode, not plan mode: carry out the work directly", m)
	}
	if strings.TrimSpace(a.Plan) == "" {
		return "", errors.New("plan is empty: write the steps of the plan")
	}
	// The user's card: accepting it is the gate's to act on (the mode
	// switches there, before this call goes on).
	_, err := call.Gate(ctx, trust.Decision{Action: trust.Ask, Reason: "a plan is accepted only by the user"}, wire.Approval{
		Kind: wire.ApprovalPlan, Tool: ProposePlanName, Title: "Accept this plan?",
		Detail: trust.VisibleText(a.Plan), Options: []wire.ApprovalOption{AcceptPlan, KeepPlan},
	}, Keep{})
	var d *Denied
	if errors.As(err, &d) {
		return "", &Denied{Msg: d.Msg + ": the user did not accept the plan. The session stays in plan mode: keep planning (read more, or ask the user what to change) and propose a new plan."}
	}
	if err != nil {
		return "", err
	}
	return "The user accepted the plan. The session is now in ask mode: carry out the plan now, step by step; each change still asks the user.", nil
}

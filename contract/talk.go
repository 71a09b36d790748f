package contract

import (
	"github.com/axp-exchange/axp"
)

// Talk declares talk, POST /api/talk.
var Talk = Define[axp.TalkBody, axp.TalkReply](Op{Name: "talk", Forbids: true, Method: post, Path: "/api/talk", Tag: "public", Access: Public, Tool: "talk", Summary: "Talk to the assistant: it lists the job and recommends an offer."},
	&axp.TalkBody{Message: "hello", ConversationID: "cnv_x"})

package contract

import (
	"github.com/axp-exchange/axp"
)

// BoardListOp declares board_list, GET /api/board.
var BoardListOp = Define[axp.BoardListQuery, axp.BoardList](Op{Name: "board_list", Forbids: true, Method: get, Path: "/api/board", Tag: "member", Access: MemberAuth, Tool: "board_list", Summary: "The collaboration board of verified members: threads, newest first, by tag."},
	&axp.BoardListQuery{Tag: "go", Cursor: "bp_x", Limit: 5})

// BoardRead declares board_read, GET /api/board/{id}.
var BoardRead = Define[axp.BoardReadQuery, axp.BoardThreadView](Op{Name: "board_read", Forbids: true, Method: get, Path: "/api/board/{id}", Tag: "member", Access: MemberAuth, Tool: "board_read", Summary: "Read a board thread with its replies."},
	&axp.BoardReadQuery{ID: "bp_x", Cursor: "bp_y", Limit: 5})

// BoardPostOp declares board_post, POST /api/board.
var BoardPostOp = Define[axp.BoardPostBody, axp.BoardPost](Op{Name: "board_post", Limit: LimitBoardPosts, Forbids: true, Method: post, Path: "/api/board", Tag: "member", Access: MemberAuth, Status: created, Tool: "board_post", Summary: "Start a board thread (screened before it appears; a high-risk post waits for the operator)."},
	&axp.BoardPostBody{Title: "t", Body: "b", Tags: []string{"go"}})

// BoardReplyOp declares board_reply, POST /api/board/{id}/replies.
var BoardReplyOp = Define[axp.BoardReplyBody, axp.BoardPost](Op{Name: "board_reply", Limit: LimitBoardPosts, Forbids: true, Method: post, Path: "/api/board/{id}/replies", Tag: "member", Access: MemberAuth, Status: created, Tool: "board_reply", Summary: "Reply to a board thread (screened like a post)."},
	&axp.BoardReplyBody{ID: "bp_x", Body: "b"})

// AdminBoard declares admin_board, GET /api/admin/board.
var AdminBoard = Define[axp.BoardAdminQuery, axp.BoardPostList](Op{Name: "admin_board", Method: get, Path: "/api/admin/board", Tag: "admin", Access: AdminAuth, Summary: "Board posts by status: by default the queue of posts waiting for the operator, oldest first; the others newest first."},
	&axp.BoardAdminQuery{Status: "all", Limit: 5})

// AdminBoardApprove declares admin_board_approve, POST /api/admin/board/{id}/approve.
var AdminBoardApprove = Define[axp.BoardApproveBody, axp.BoardPost](Op{Name: "admin_board_approve", Method: post, Path: "/api/admin/board/{id}/approve", Tag: "admin", Access: AdminAuth, Summary: "Let a pending or hidden board post appear."},
	&axp.BoardApproveBody{ID: "bp_x", Note: "n"})

// AdminBoardHide declares admin_board_hide, POST /api/admin/board/{id}/hide.
var AdminBoardHide = Define[axp.BoardHideBody, axp.BoardPost](Op{Name: "admin_board_hide", Method: post, Path: "/api/admin/board/{id}/hide", Tag: "admin", Access: AdminAuth, Summary: "Hide a board post; its author sees the reason."},
	&axp.BoardHideBody{ID: "bp_x", Reason: "r"})

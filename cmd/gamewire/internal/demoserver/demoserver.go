// Package demoserver is a small GSF game server for demonstrations: "gamewire serve", the
// round trip of "gamewire demo", and tests. It answers the first request of the real game
// client, GetClientVersionInfo, as the reference server does, and a few other messages.
package demoserver

import (
	"context"
	"log/slog"
	"slices"
	"strings"

	"github.com/gamewire/gamewire/gsf"
	"github.com/gamewire/gamewire/gsf/gsfnet"
	"github.com/gamewire/gamewire/gsf/messages"
)

// DefaultVersionInfo is the reference server's answer to GetClientVersionInfo:
// "<version>.<forceUpdate>".
const DefaultVersionInfo = "133852.true"

// Message types the demo server answers.
const (
	GetClientVersionInfo int32 = gsf.MsgGetClientVersionInfo // USER_SERVER/GET_CLIENT_VERSION_INFO
	CheckUsername        int32 = gsf.MsgCheckUsername        // USER_SERVER/CHECK_USERNAME
	Echo                 int32 = gsf.SyncMsgEcho             // SYNC_SERVER/ECHO
	BindUser             int32 = gsf.SyncMsgBindUserNotify   // SYNC_SERVER/BIND_USER_NOTIFY (the demo's own body)
	Chat                 int32 = gsf.SyncMsgChat             // SYNC_SERVER/CHAT (the demo's own body)
	ChatNotify           int32 = gsf.ClientMsgChat           // CLIENT/CHAT, the notify Chat sends (the game's own body, messages.ChatNotify)
)

// The bodies the demo server answers are those of the message catalog: its handlers are typed
// handlers written with package messages.
type (
	// GetClientVersionInfoRequest is the body of USER_SERVER/GET_CLIENT_VERSION_INFO; the game
	// client sends "AmazingWorld".
	GetClientVersionInfoRequest = messages.GetClientVersionInfoRequest
	// GetClientVersionInfoResponse answers it with "<version>.<forceUpdate>".
	GetClientVersionInfoResponse = messages.GetClientVersionInfoResponse
	// CheckUsernameRequest is the body of USER_SERVER/CHECK_USERNAME, the registration's check
	// that a name is free.
	CheckUsernameRequest = messages.CheckUsernameRequest
	// CheckUsernameResponse is empty: success is a response without an error.
	CheckUsernameResponse = messages.CheckUsernameResponse
)

// EchoBody is the body of SYNC_SERVER/ECHO in both directions. (The reference does not route
// ECHO; its body here is the demo's own.)
type EchoBody struct {
	Text string
}

// BindUserRequest is the demo's body of SYNC_SERVER/BIND_USER_NOTIFY: the session takes a user
// key (Session.SetUser) and joins a room (a named group, Server.Group), so that chat lines
// reach it. With "gamewire serve --cluster" both span every node.
type BindUserRequest struct {
	User string
	Room string
}

// BindUserResponse is empty.
type BindUserResponse struct{}

// ChatRequest is the demo's body of SYNC_SERVER/CHAT: a line for every member of a room.
type ChatRequest struct {
	Room string
	Text string
}

// ChatResponse says how many sessions of this node the line was queued for.
type ChatResponse struct {
	Delivered int32
}

// A Message describes one message the demo server answers, with the field lists (see
// bitproto.ParseFields) of its bodies, for tools such as "gamewire call".
type Message struct {
	Class    gsf.ServiceClass
	Type     int32
	Request  string // field list of the request body
	Response string // field list of the response body
	About    string
}

// Messages lists the messages the demo server answers.
var Messages = []Message{
	{gsf.SvcUserServer, GetClientVersionInfo, "clientName:string", "clientVersionInfo:string",
		`answers "` + DefaultVersionInfo + `" as the reference server does`},
	{gsf.SvcUserServer, CheckUsername, "username:string,password:string", "",
		`answers an empty body, or for a taken name (admin, root, gm) result ERR with app code DUPLICATE_NICKNAME`},
	{gsf.SvcSyncServer, Echo, "text:string", "text:string", "echoes the text"},
	{gsf.SvcSyncServer, BindUser, "user:string,room:string", "",
		"binds the connection to a user key and joins a chat room (on every node with --cluster)"},
	{gsf.SvcSyncServer, Chat, "room:string,text:string", "delivered:int32",
		"sends the game's CLIENT/CHAT notify (ChatNotify, Msg \"user: text\") to every member of the room (on every node with --cluster)"},
}

// Lookup returns the description of a message the demo server answers.
func Lookup(class gsf.ServiceClass, msgType int32) (Message, bool) {
	for _, m := range Messages {
		if m.Class == class && m.Type == msgType {
			return m, true
		}
	}
	return Message{}, false
}

// Options configure the demo server. The zero value is the reference's behaviour.
type Options struct {
	// VersionInfo is the answer to GetClientVersionInfo (default DefaultVersionInfo).
	VersionInfo string
	// TakenNames are the usernames CHECK_USERNAME reports as taken (default admin, root, gm).
	TakenNames []string
}

// NewMux returns the demo server's handlers.
func NewMux(o Options) *gsfnet.Mux {
	version := o.VersionInfo
	if version == "" {
		version = DefaultVersionInfo
	}
	taken := o.TakenNames
	if taken == nil {
		taken = []string{"admin", "root", "gm"}
	}
	mux := gsfnet.NewMux()
	gsfnet.Handle(mux, gsf.SvcSyncServer, BindUser,
		func(ctx context.Context, s *gsfnet.Session, req *BindUserRequest) (*BindUserResponse, error) {
			if req.User == "" || req.Room == "" {
				return nil, gsfnet.Errorf(gsf.AppInput, "user and room must not be empty")
			}
			s.SetUser(req.User)
			s.Server().Group(req.Room).Add(s)
			return &BindUserResponse{}, nil
		})
	gsfnet.Handle(mux, gsf.SvcSyncServer, Chat,
		func(ctx context.Context, s *gsfnet.Session, req *ChatRequest) (*ChatResponse, error) {
			line := req.Text
			if from := s.User(); from != "" {
				line = from + ": " + line
			}
			n, err := s.Server().Group(req.Room).Notify(gsf.SvcClient, ChatNotify, &messages.ChatNotify{Msg: line})
			return &ChatResponse{Delivered: int32(n)}, err
		})
	gsfnet.Handle(mux, gsf.SvcUserServer, GetClientVersionInfo,
		func(ctx context.Context, s *gsfnet.Session, req *GetClientVersionInfoRequest) (*GetClientVersionInfoResponse, error) {
			return &GetClientVersionInfoResponse{ClientVersionInfo: version}, nil
		})
	gsfnet.Handle(mux, gsf.SvcUserServer, CheckUsername,
		func(ctx context.Context, s *gsfnet.Session, req *CheckUsernameRequest) (*CheckUsernameResponse, error) {
			if slices.Contains(taken, strings.ToLower(req.Username)) {
				return nil, gsfnet.Errorf(gsf.AppDuplicateNickname, "username %q is already in use", req.Username)
			}
			return &CheckUsernameResponse{}, nil
		})
	gsfnet.Handle(mux, gsf.SvcSyncServer, Echo,
		func(ctx context.Context, s *gsfnet.Session, req *EchoBody) (*EchoBody, error) {
			return req, nil
		})
	return mux
}

// NewServer returns the demo server on addr: the handlers of NewMux, every message logged at
// level Info, and unknown messages answered with NOT_IMPLEMENTED (the reference ignores them,
// which leaves a caller waiting).
func NewServer(addr string, logger *slog.Logger, o Options) *gsfnet.Server {
	if logger == nil {
		logger = slog.Default()
	}
	mux := NewMux(o)
	mux.Use(gsfnet.Logging(logger))
	return &gsfnet.Server{Addr: addr, Handler: mux, Logger: logger, UnknownPolicy: gsfnet.UnknownReject}
}

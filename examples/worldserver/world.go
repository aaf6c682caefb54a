package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"time"

	"github.com/gamewire/gamewire/gsf"
	"github.com/gamewire/gamewire/gsf/gsfnet"
	"github.com/gamewire/gamewire/gsf/messages"
)

// VersionInfo is the answer to GetClientVersionInfo: the version the client must have, and
// whether it must update.
const VersionInfo = "133852.true"

// playerClass and playerType are the class and type of the players' OIDs.
const playerClass, playerType = 4, 1

// World is the game: its players in a database, and the handlers of the client's first
// minutes on a gsfnet.Server. One World may serve the user-server and the sync-server
// messages on one server (as here) or on two.
type World struct {
	db  *sql.DB
	srv *gsfnet.Server
	log *slog.Logger
	// SyncAddr is the sync server's address that InitLocation sends the client to.
	SyncAddr string
	// AutoLogin, if set, is the login of a connection that sends InitLocation or SendMessage
	// without logging in: it lets `gamewire call` try each step on a connection of its own.
	AutoLogin string
}

// session keys.
type (
	playerKey   struct{} // *player: the user-server session's player
	locationKey struct{} // *gsfnet.Group: the sync-server session's location
)

type player struct {
	oid   messages.OID
	login string
}

// OpenDB opens (and creates) the players' database: a SQLite file, through a pure-Go driver.
func OpenDB(path string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)")
	if err != nil {
		return nil, err
	}
	// One connection per process: SQLite writes one at a time anyway.
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE IF NOT EXISTS players (
		number    INTEGER PRIMARY KEY AUTOINCREMENT,
		login     TEXT NOT NULL UNIQUE,
		password  TEXT NOT NULL,
		oid       INTEGER UNIQUE,
		platform  TEXT,
		created   INTEGER,
		last_seen INTEGER,
		location  INTEGER,
		token     TEXT,
		x INTEGER NOT NULL DEFAULT 0, y INTEGER NOT NULL DEFAULT 0, z INTEGER NOT NULL DEFAULT 0
	)`); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// NewWorld returns a world on db whose handlers run on srv: it sets srv.Handler.
func NewWorld(db *sql.DB, srv *gsfnet.Server, log *slog.Logger) *World {
	w := &World{db: db, srv: srv, log: log}
	mux := gsfnet.NewMux()
	gsfnet.Handle(mux, gsf.SvcUserServer, gsf.MsgGetClientVersionInfo, w.version)
	gsfnet.Handle(mux, gsf.SvcUserServer, gsf.MsgLogin, w.login)
	gsfnet.Handle(mux, gsf.SvcUserServer, gsf.MsgInitLocation, w.initLocation)
	gsfnet.Handle(mux, gsf.SvcUserServer, gsf.MsgSendMessage, w.chat)
	gsfnet.Handle(mux, gsf.SvcSyncServer, gsf.SyncMsgLogin, w.syncLogin)
	gsfnet.Handle(mux, gsf.SvcSyncServer, gsf.SyncMsgMovePlayer, w.move)
	gsfnet.Handle(mux, gsf.SvcSyncServer, gsf.SyncMsgHeartbeatNotify, w.heartbeat)
	srv.Handler = mux
	prev := srv.OnDisconnect
	srv.OnDisconnect = func(s *gsfnet.Session, err error) {
		w.leave(s)
		if prev != nil {
			prev(s, err)
		}
	}
	return w
}

func (w *World) version(ctx context.Context, s *gsfnet.Session, req *messages.GetClientVersionInfoRequest) (*messages.GetClientVersionInfoResponse, error) {
	return &messages.GetClientVersionInfoResponse{ClientVersionInfo: VersionInfo}, nil
}

// login logs a player in, and registers a login seen for the first time.
func (w *World) login(ctx context.Context, s *gsfnet.Session, req *messages.LoginRequest) (*messages.LoginResponse, error) {
	if req.LoginID == "" {
		return &messages.LoginResponse{Status: messages.SessionInvalidLogin}, nil
	}
	p, ok, err := w.player(ctx, req.LoginID, req.Password, messages.PlatformOf(req.ClientEnvInfo.MachineOS))
	if err != nil {
		return nil, err // the reference closes the connection (Server.CloseOnError)
	}
	if !ok {
		return &messages.LoginResponse{Status: messages.SessionIncorrectPassword}, nil
	}
	s.Set(playerKey{}, p)
	return &messages.LoginResponse{
		Status:            messages.SessionInProgress,
		SessionOID:        p.oid,
		SiteInfo:          messages.SiteInfo{NicknameFirst: p.login, SiteUserOID: p.oid},
		Player:            messages.Player{OID: p.oid},
		CurrentServerTime: time.Now().UTC(),
	}, nil
}

// player returns the player with login, created with password if there is none; ok is false
// for a wrong password.
func (w *World) player(ctx context.Context, login, password string, platform messages.Platform) (p *player, ok bool, err error) {
	now := messages.UnixTime{Time: time.Now()}
	var stored string
	p = &player{login: login}
	err = w.db.QueryRowContext(ctx, `SELECT oid, password FROM players WHERE login = ?`, login).Scan(&p.oid, &stored)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		res, err := w.db.ExecContext(ctx, `INSERT INTO players (login, password, platform, created, last_seen) VALUES (?, ?, ?, ?, ?)`,
			login, password, platform, now, now)
		if err != nil {
			return nil, false, fmt.Errorf("register %s: %w", login, err)
		}
		n, err := res.LastInsertId()
		if err != nil {
			return nil, false, err
		}
		p.oid = messages.OID{Class: playerClass, Type: playerType, Number: n}
		_, err = w.db.ExecContext(ctx, `UPDATE players SET oid = ? WHERE number = ?`, p.oid, n)
		return p, err == nil, err
	case err != nil:
		return nil, false, fmt.Errorf("look up %s: %w", login, err)
	case stored != password:
		return nil, false, nil
	}
	_, err = w.db.ExecContext(ctx, `UPDATE players SET last_seen = ?, platform = ? WHERE login = ?`, now, platform, login)
	return p, err == nil, err
}

// loggedIn returns the player of a user-server session.
func (w *World) loggedIn(ctx context.Context, s *gsfnet.Session) (*player, error) {
	if p, ok := s.Get(playerKey{}).(*player); ok {
		return p, nil
	}
	if w.AutoLogin != "" {
		p, _, err := w.player(ctx, w.AutoLogin, "", messages.PlatformUnknown)
		if err != nil {
			return nil, err
		}
		s.Set(playerKey{}, p)
		return p, nil
	}
	return nil, gsfnet.NewError(gsf.AppAuth, "not logged in")
}

// initLocation puts the player in a location and sends it to the sync server with a token.
func (w *World) initLocation(ctx context.Context, s *gsfnet.Session, req *messages.InitLocationRequest) (*messages.InitLocationResponse, error) {
	p, err := w.loggedIn(ctx, s)
	if err != nil {
		return nil, err
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	token := hex.EncodeToString(b[:])
	if _, err := w.db.ExecContext(ctx, `UPDATE players SET location = ?, token = ? WHERE oid = ?`, req.LocOID, token, p.oid); err != nil {
		return nil, err
	}
	host, port, _ := net.SplitHostPort(w.SyncAddr)
	n, _ := strconv.Atoi(port)
	return &messages.InitLocationResponse{SyncServerToken: token, SyncServerIP: host, SyncServerPort: int32(n)}, nil
}

// locationGroup is the named group of the players in a location: it spans the cluster.
func (w *World) locationGroup(loc messages.OID) *gsfnet.Group {
	return w.srv.Group("loc-" + strconv.FormatInt(loc.Int64(), 10))
}

// syncLogin takes a sync-server connection in with the token of InitLocation: it joins the
// location's group, and the players there and the newcomer learn of each other.
func (w *World) syncLogin(ctx context.Context, s *gsfnet.Session, req *messages.SyncLoginRequest) (*messages.SyncLoginResponse, error) {
	var loc messages.OID
	var token sql.NullString
	var pos messages.Position
	err := w.db.QueryRowContext(ctx, `SELECT location, token, x, y, z FROM players WHERE oid = ?`, req.UOID).Scan(&loc, &token, &pos.X, &pos.Y, &pos.Z)
	if errors.Is(err, sql.ErrNoRows) || err == nil && (!token.Valid || token.String != req.Token) {
		return nil, gsfnet.NewError(gsf.AppAuth, "bad sync token")
	}
	if err != nil {
		return nil, err
	}
	g := w.locationGroup(loc)
	s.Set(playerKey{}, &player{oid: req.UOID})
	s.Set(locationKey{}, g)
	s.SetUser(strconv.FormatInt(req.UOID.Int64(), 10))
	add := &messages.AddPlayerNotify{POID: req.UOID, LOID: loc, Pos: pos}
	if _, err := g.SendExcept(s, gsf.NewNotify(gsf.SvcClient, gsf.ClientMsgAddPlayer), add); err != nil {
		return nil, err
	}
	// The newcomer learns of the players of this node already there; those on other nodes
	// announce themselves when they move.
	for _, other := range g.Sessions() {
		if op, ok := other.Get(playerKey{}).(*player); ok {
			_ = s.Notify(gsf.SvcClient, gsf.ClientMsgAddPlayer, &messages.AddPlayerNotify{POID: op.oid, LOID: loc})
		}
	}
	g.Add(s)
	return &messages.SyncLoginResponse{}, nil
}

// syncPlayer returns the player and group of a sync-server session, or nil.
func syncPlayer(s *gsfnet.Session) (*player, *gsfnet.Group) {
	g, _ := s.Get(locationKey{}).(*gsfnet.Group)
	p, _ := s.Get(playerKey{}).(*player)
	if g == nil || p == nil {
		return nil, nil
	}
	return p, g
}

// move passes a player's move on to the others in the location, and keeps the position.
func (w *World) move(ctx context.Context, s *gsfnet.Session, req *messages.MoveNotify) (*struct{}, error) {
	p, g := syncPlayer(s)
	if p == nil {
		return nil, nil // not in a location: ignored, as an unknown message
	}
	if n := len(req.Pos); n > 0 {
		last := req.Pos[n-1]
		if _, err := w.db.ExecContext(ctx, `UPDATE players SET x = ?, y = ?, z = ? WHERE oid = ?`, last.X, last.Y, last.Z, p.oid); err != nil {
			return nil, err
		}
	}
	out := &messages.PlayerMoveNotify{POID: p.oid, Pos: req.Pos, QTH: req.QTH, SecondQTH: req.SecondQTH, Seq: req.Seq}
	_, err := g.SendExcept(s, gsf.NewNotify(gsf.SvcClient, gsf.ClientMsgMovePlayer), out)
	return nil, err
}

// heartbeat passes a player's heartbeat on to the others in the location (a discardable
// notify: a slow client loses heartbeats, not its connection), and notes when it was seen.
func (w *World) heartbeat(ctx context.Context, s *gsfnet.Session, req *messages.HeartbeatNotify) (*struct{}, error) {
	p, g := syncPlayer(s)
	if p == nil {
		return nil, nil
	}
	if _, err := w.db.ExecContext(ctx, `UPDATE players SET last_seen = ? WHERE oid = ?`, messages.UnixTime{Time: time.Now()}, p.oid); err != nil {
		return nil, err
	}
	h := gsf.NewNotify(gsf.SvcSyncServer, gsf.SyncMsgHeartbeatNotify)
	h.SetDiscardable(true)
	_, err := g.SendExcept(s, h, &messages.HeartbeatNotify{POID: p.oid})
	return nil, err
}

// chat sends a player's message to everyone in the player's location.
func (w *World) chat(ctx context.Context, s *gsfnet.Session, req *messages.SendMessageRequest) (*messages.SendMessageResponse, error) {
	p, err := w.loggedIn(ctx, s)
	if err != nil {
		return nil, err
	}
	var loc sql.Null[messages.OID]
	if err := w.db.QueryRowContext(ctx, `SELECT location FROM players WHERE oid = ?`, p.oid).Scan(&loc); err != nil {
		return nil, err
	}
	if !loc.Valid {
		return nil, gsfnet.NewError(gsf.AppInput, "not in a location")
	}
	n := &messages.ChatNotify{Msg: req.Message, TypeID: req.TypeID, GroupID: req.PlayerChatGroupID, SenderID: p.oid}
	if _, err := w.locationGroup(loc.V).Notify(gsf.SvcClient, gsf.ClientMsgChat, n); err != nil {
		return nil, err
	}
	return &messages.SendMessageResponse{FilteredMessage: req.Message, RecipientID: req.RecipientID}, nil
}

// leave tells the others in the location that a sync-server session's player left.
func (w *World) leave(s *gsfnet.Session) {
	p, g := syncPlayer(s)
	if p == nil {
		return
	}
	g.Remove(s)
	if _, err := g.Notify(gsf.SvcClient, gsf.ClientMsgRemovePlayer, &messages.RemovePlayerNotify{POID: p.oid}); err != nil {
		w.log.Warn("worldserver: remove player", "player", p.oid.String(), "err", err)
	}
}

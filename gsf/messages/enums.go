package messages

import "github.com/gamewire/gamewire/bitstream"

// SessionStatus is the status of a login (LoginResponse.Status). It travels as its name.
//
// The zero value travels as "IN_PROGRESS" (SessionInProgress), as the reference's zero value
// does (its enum is a number whose 0 is IN_PROGRESS): a LoginResponse left at its zero value
// encodes to the reference's bytes. A decoded status holds the name that came, so that any body
// decodes and encodes to the same bits; only an empty name, which the reference never sends,
// encodes back as IN_PROGRESS.
type SessionStatus string

// The session statuses of the reference.
const (
	SessionInProgress        SessionStatus = "IN_PROGRESS"
	SessionLoggedOut         SessionStatus = "LOGGED_OUT"
	SessionTimedOut          SessionStatus = "TIMED_OUT"
	SessionForcedLogout      SessionStatus = "FORCED_LOGOUT"
	SessionLogoutInProgress  SessionStatus = "LOGOUT_IN_PROGRESS"
	SessionIncorrectPassword SessionStatus = "INCORRECT_PASSWORD"
	SessionInvalidLogin      SessionStatus = "INVALID_LOGIN"
	SessionSystemError       SessionStatus = "SYSTEM_ERROR"
	SessionUserNotActive     SessionStatus = "USER_NOT_ACTIVE"
	SessionUserUnapproved    SessionStatus = "USER_UNAPPROVED"
	SessionAccountExpired    SessionStatus = "ACCOUNT_EXPIRED"
	SessionUserExists        SessionStatus = "USER_EXISTS"
)

// Value returns the status's number in the reference's table; ok is false for a name the
// reference does not know (it parses such a name as -1).
func (s SessionStatus) Value() (v int32, ok bool) { return enumValue("sessionStatus", string(s)) }

// ChatChannelTypeValue is the kind of a chat channel (ChatChannelType.Value). It travels as its
// name. The zero value travels as "PRIVATE" (ChatPrivate), the reference's zero value; see
// SessionStatus.
type ChatChannelTypeValue string

// The chat channel types of the reference.
const (
	ChatPrivate      ChatChannelTypeValue = "PRIVATE"
	ChatPrivateGroup ChatChannelTypeValue = "PRIVATE_GROUP"
	ChatLocal        ChatChannelTypeValue = "LOCAL"
)

// Value returns the channel type's number in the reference's table.
func (c ChatChannelTypeValue) Value() (v int32, ok bool) {
	return enumValue("chatChannelTypeValue", string(c))
}

// OnlineStatusValue is a player's online status (OnlineStatus.Value). It travels as its name.
// The zero value travels as "OFFLINE" (StatusOffline), the reference's zero value; see
// SessionStatus.
type OnlineStatusValue string

// The online statuses of the reference.
const (
	StatusOffline       OnlineStatusValue = "OFFLINE"
	StatusAppearOffline OnlineStatusValue = "APPEAR_OFFLINE"
	StatusOnline        OnlineStatusValue = "ONLINE"
	StatusBusy          OnlineStatusValue = "BUSY"
)

// Value returns the status's number in the reference's table.
func (s OnlineStatusValue) Value() (v int32, ok bool) {
	return enumValue("onlineStatusValue", string(s))
}

func enumValue(table, name string) (int32, bool) {
	v, ok := enumSets()[table][name]
	if !ok {
		return -1, false
	}
	return v, true
}

// MarshalBits writes the status's name; the zero value writes "IN_PROGRESS", as the reference
// does.
func (s SessionStatus) MarshalBits(w *bitstream.Writer) error {
	return writeEnum(w, string(s), string(SessionInProgress))
}

// UnmarshalBits reads a name.
func (s *SessionStatus) UnmarshalBits(r *bitstream.Reader) error { return readEnum(r, (*string)(s)) }

// MarshalBits writes the channel type's name; the zero value writes "PRIVATE", as the
// reference does.
func (c ChatChannelTypeValue) MarshalBits(w *bitstream.Writer) error {
	return writeEnum(w, string(c), string(ChatPrivate))
}

// UnmarshalBits reads a name.
func (c *ChatChannelTypeValue) UnmarshalBits(r *bitstream.Reader) error {
	return readEnum(r, (*string)(c))
}

// MarshalBits writes the status's name; the zero value writes "OFFLINE", as the reference
// does.
func (s OnlineStatusValue) MarshalBits(w *bitstream.Writer) error {
	return writeEnum(w, string(s), string(StatusOffline))
}

// UnmarshalBits reads a name.
func (s *OnlineStatusValue) UnmarshalBits(r *bitstream.Reader) error {
	return readEnum(r, (*string)(s))
}

// writeEnum writes name, or zero (the name of the reference's value 0) for the empty name.
func writeEnum(w *bitstream.Writer, name, zero string) error {
	if name == "" {
		name = zero
	}
	w.WriteString(name)
	return nil
}

func readEnum(r *bitstream.Reader, dst *string) error {
	s, err := r.ReadString()
	if err != nil {
		return err
	}
	*dst = s
	return nil
}

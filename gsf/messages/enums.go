package messages

// SessionStatus is the status of a login (LoginResponse.Status). It travels as its name.
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
// name.
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

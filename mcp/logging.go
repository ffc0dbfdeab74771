package mcp

import "slices"

// LogLevel is the severity of a log message sent to the client with
// [CallRequest.Log], as in syslog (RFC 5424): "debug" is the lowest,
// "emergency" the highest.
type LogLevel string

// The log levels, lowest first.
const (
	LevelDebug     LogLevel = "debug"
	LevelInfo      LogLevel = "info"
	LevelNotice    LogLevel = "notice"
	LevelWarning   LogLevel = "warning"
	LevelError     LogLevel = "error"
	LevelCritical  LogLevel = "critical"
	LevelAlert     LogLevel = "alert"
	LevelEmergency LogLevel = "emergency"
)

var levels = []LogLevel{LevelDebug, LevelInfo, LevelNotice, LevelWarning, LevelError, LevelCritical, LevelAlert, LevelEmergency}

const levelNames = "debug, info, notice, warning, error, critical, alert, emergency"

// levelOff is above every level: no messages are sent.
const levelOff int32 = 1 << 20

// rank orders the levels from 0 (debug); it is -1 for an unknown level.
func (l LogLevel) rank() int32 { return int32(slices.Index(levels, l)) }

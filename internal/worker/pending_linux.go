package worker

import "syscall"

const fionread = syscall.TIOCINQ

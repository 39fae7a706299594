// Debian's libsystemd (libsystemd-dev), for reading the journal (--journal): only
// ToastIO/Input/Unsafe/JournalReader.swift imports this.
#ifndef CSYSTEMD_SHIM_H
#define CSYSTEMD_SHIM_H

#include <systemd/sd-journal.h>

#endif

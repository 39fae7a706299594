// Debian's hiredis (libhiredis-dev), the Redis client of the Redis Streams source and sink:
// its synchronous API only. Only ToastIO/Redis/Unsafe/RedisConnection.swift imports this.
#ifndef CHIREDIS_SHIM_H
#define CHIREDIS_SHIM_H

#include <hiredis/hiredis.h>

#endif

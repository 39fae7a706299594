// Debian's Lua 5.4, as one module. The bridge's own C (the allocator, the budget, the
// trampoline, the rules' call and the view of their toast) is the CLuaBridge target.
#ifndef CLUA_SHIM_H
#define CLUA_SHIM_H

#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

#endif

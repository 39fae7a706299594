// Swift functions callable from Lua, and the message handler that gives an error its place.
#include "CLuaBridge.h"

static int clua_trampoline(lua_State *L) {
    clua_SwiftFunction fn = (clua_SwiftFunction)lua_touserdata(L, lua_upvalueindex(1));
    clua_context *ctx = clua_getcontext(L);
    int enforcing = ctx->enforcing;
    ctx->enforcing = 0;
    int n = fn(L);
    ctx->enforcing = enforcing;
    if (n == CLUA_RAISE_WHERE) {
        luaL_where(L, 1);
        lua_insert(L, -2);
        lua_concat(L, 2);
        return lua_error(L);
    }
    if (n < 0) return lua_error(L);
    return n;
}

/// Pushes `fn` as a Lua function; upvalue 1 is the function pointer, then `nup`
/// upvalues taken from the stack.
void clua_pushswiftfunction(lua_State *L, clua_SwiftFunction fn, int nup) {
    lua_pushlightuserdata(L, (void *)fn);
    if (nup > 0) lua_insert(L, -(nup + 1));
    lua_pushcclosure(L, clua_trampoline, nup + 1);
}

// ---- Errors with a place ----------------------------------------------------------

/// Message handler for lua_pcall: turns any error value into "FILE:LINE: text",
/// taking the place of the innermost Lua frame when the value carries none.
static int clua_msghandler(lua_State *L) {
    if (lua_type(L, 1) == LUA_TSTRING) return 1;
    if (lua_type(L, 1) == LUA_TNUMBER) {
        luaL_tolstring(L, 1, NULL);
    } else if (!(luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)) {
        lua_settop(L, 1);
        lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    }
    lua_Debug ar;
    for (int level = 1; lua_getstack(L, level, &ar); level++) {
        lua_getinfo(L, "Sl", &ar);
        if (ar.currentline > 0) {
            lua_pushfstring(L, "%s:%d: ", ar.short_src, ar.currentline);
            lua_insert(L, -2);
            lua_concat(L, 2);
            break;
        }
    }
    return 1;
}

void clua_pushmsghandler(lua_State *L) { lua_pushcfunction(L, clua_msghandler); }

// The instruction budget of a call, and the stop the memory cap arms.
#include "CLuaBridge.h"
#include <stdio.h>

/// The budget ran out (the hook's count reached), or the memory cap was passed (`stopped` 2,
/// armed by the allocator): raises the error at the script's line. Re-armed at every
/// instruction so a script's own pcall cannot swallow the stop; every raise names the place
/// of the first, where the script really was (not where a pcall that caught it goes on).
void clua_counthook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    clua_context *ctx = clua_getcontext(L);
    lua_sethook(L, clua_counthook, LUA_MASKCOUNT, 1);
    int enforcing = ctx->enforcing;
    ctx->enforcing = 0;
    if (ctx->stopped == 0) ctx->stopped = 1;
    if (ctx->stopplace[0] == 0) {
        luaL_where(L, 0);
        const char *place = lua_tostring(L, -1);
        snprintf(ctx->stopplace, sizeof ctx->stopplace, "%s", place ? place : "");
        lua_pop(L, 1);
    }
    lua_pushstring(L, ctx->stopplace);
    lua_pushstring(L, ctx->stopped == 2 ? "not enough memory (the scripts' memory cap was reached)"
                                        : "instruction budget exceeded");
    lua_concat(L, 2);
    ctx->enforcing = enforcing;
    lua_error(L);
}

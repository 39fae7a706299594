// The state and its bookkeeping: the context, the allocator with the memory cap, the panic
// handler of an error no protected call caught.
#include "CLuaBridge.h"
#include <stdio.h>
#include <stdlib.h>

/// A zeroed context with a memory cap of `limit` bytes (0: none).
clua_context *clua_newcontext(size_t limit) {
    clua_context *ctx = (clua_context *)calloc(1, sizeof(clua_context));
    if (ctx != NULL) {
        ctx->limit = limit;
        ctx->generation = 1;
    }
    return ctx;
}

void clua_freecontext(clua_context *ctx) { free(ctx); }


/// The memory cap. Past the cap an allocation still succeeds within a slack of an eighth of it,
/// and the count hook is armed for the next instruction: it raises the error at the script's
/// own line, and again at every instruction after, so a script's pcall cannot swallow it (as
/// with the budget). Past the slack the allocation fails (Lua's own "not enough memory").
static void *clua_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    clua_context *ctx = (clua_context *)ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        free(ptr);
        ctx->used -= old;
        return NULL;
    }
    if (ctx->enforcing && ctx->limit > 0 && nsize > old && ctx->used + (nsize - old) > ctx->limit) {
        if (ctx->stopped == 0 && ctx->L != NULL) {
            ctx->stopped = 2;
            lua_sethook(ctx->L, clua_counthook, LUA_MASKCOUNT, 1);
        }
        if (ctx->used + (nsize - old) > ctx->limit + ctx->limit / 8) return NULL;
    }
    void *p = realloc(ptr, nsize);
    if (p != NULL) ctx->used = ctx->used - old + nsize;
    return p;
}

static int clua_panic(lua_State *L) {
    const char *msg = lua_tostring(L, -1);
    fprintf(stderr, "toastscript: unprotected Lua error: %s\n", msg ? msg : "(not a string)");
    abort();
}

lua_State *clua_newstate(clua_context *ctx) {
    lua_State *L = lua_newstate(clua_alloc, ctx);
    if (L == NULL) return NULL;
    ctx->L = L;
    *(clua_context **)lua_getextraspace(L) = ctx;
    lua_atpanic(L, clua_panic);
    return L;
}

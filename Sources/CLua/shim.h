// C shims for Lua 5.4's macros and the few pieces that must be written in C:
// the allocator with a memory cap, the instruction-budget hook, the trampoline that
// lets Swift functions raise Lua errors without unwinding Swift frames, and the
// message handler that names the error's place. Only ToastPipeline/Lua imports this.
#ifndef CLUA_SHIM_H
#define CLUA_SHIM_H

#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Per-state bookkeeping, reachable from the state's extra space.
typedef struct clua_context {
    size_t used;            // bytes currently allocated by the state
    size_t limit;           // cap enforced while `enforcing` (0: none)
    int enforcing;          // 1 while script code runs; 0 while Swift builds values
    int handback;           // set when Swift must see a rule's results (see clua_runrules)
    void *owner;            // the Swift object that owns the state
} clua_context;

static inline clua_context *clua_getcontext(lua_State *L) {
    return *(clua_context **)lua_getextraspace(L);
}

static void *clua_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    clua_context *ctx = (clua_context *)ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        free(ptr);
        ctx->used -= old;
        return NULL;
    }
    if (ctx->enforcing && ctx->limit > 0 && nsize > old && ctx->used + (nsize - old) > ctx->limit) {
        return NULL;
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

static inline lua_State *clua_newstate(clua_context *ctx) {
    lua_State *L = lua_newstate(clua_alloc, ctx);
    if (L == NULL) return NULL;
    *(clua_context **)lua_getextraspace(L) = ctx;
    lua_atpanic(L, clua_panic);
    return L;
}

// ---- Macros Swift cannot import -------------------------------------------------

static inline int clua_registryindex(void) { return LUA_REGISTRYINDEX; }
static inline void clua_pop(lua_State *L, int n) { lua_pop(L, n); }
static inline void clua_insert(lua_State *L, int i) { lua_insert(L, i); }
static inline void clua_remove(lua_State *L, int i) { lua_remove(L, i); }
static inline lua_Number clua_tonumber(lua_State *L, int i, int *isnum) { return lua_tonumberx(L, i, isnum); }
static inline lua_Integer clua_tointeger(lua_State *L, int i, int *isnum) { return lua_tointegerx(L, i, isnum); }
static inline const char *clua_tolstring(lua_State *L, int i, size_t *len) { return lua_tolstring(L, i, len); }
static inline int clua_pcall(lua_State *L, int nargs, int nresults, int msgh) {
    return lua_pcall(L, nargs, nresults, msgh);
}
static inline const char *clua_release(void) { return LUA_RELEASE; }
static inline void clua_getglobaltable(lua_State *L) { lua_pushglobaltable(L); }
/// Generational collection: toast proxies die young, and minor collections free them soon.
static inline void clua_gc_generational(lua_State *L) { lua_gc(L, LUA_GCGEN, 0, 0); }

// ---- Swift functions exposed to Lua ----------------------------------------------

/// A Swift function callable from Lua. It returns the number of results, or
/// CLUA_RAISE_WHERE / CLUA_RAISE with the error value on top of the stack; the
/// trampoline raises it, so no Lua error ever unwinds a Swift frame.
typedef int (*clua_SwiftFunction)(lua_State *L);
enum { CLUA_RAISE_WHERE = -1, CLUA_RAISE = -2 };

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
static inline void clua_pushswiftfunction(lua_State *L, clua_SwiftFunction fn, int nup) {
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

static inline void clua_pushmsghandler(lua_State *L) { lua_pushcfunction(L, clua_msghandler); }

// ---- Instruction budget --------------------------------------------------------------

static void clua_counthook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    // Re-arm at every instruction so a script's own pcall cannot swallow the stop.
    lua_sethook(L, clua_counthook, LUA_MASKCOUNT, 1);
    luaL_where(L, 0);
    lua_pushstring(L, "instruction budget exceeded");
    lua_concat(L, 2);
    lua_error(L);
}

/// Arms the budget for one call (count 0: no budget) and lets the memory cap bite.
static inline void clua_begincall(lua_State *L, int count) {
    clua_getcontext(L)->enforcing = 1;
    if (count > 0) lua_sethook(L, clua_counthook, LUA_MASKCOUNT, count);
}

/// Disarms what clua_begincall armed.
static inline void clua_endcall(lua_State *L) {
    clua_context *ctx = clua_getcontext(L);
    ctx->enforcing = 0;
    lua_sethook(L, NULL, 0, 0);
}

// ---- Rules ---------------------------------------------------------------------------

/// Where clua_runrules stopped.
enum { CLUA_RULES_KEPT = 0, CLUA_RULE_RETURNED = 1, CLUA_RULE_FAILED = 2 };

/// Runs the rules whose functions are in the registry at refs[first..count-1] on the toast
/// table at `table`: each one a protected call (message handler at `handler`) with its own
/// instruction budget, as one call from Swift for a toast instead of one per rule. Goes on
/// while a rule keeps the toast as it is: it returns nothing, true or the table itself, and
/// the Swift side did not ask to see its results (`handback`: it does when a toast table is
/// written to, or a role changes what the table shows). Returns the position
/// of the first rule that did anything else, with *stop = CLUA_RULE_RETURNED (its two results
/// on the stack above `table`) or CLUA_RULE_FAILED (*status the pcall status, the error value
/// above `table`); or `count` with *stop = CLUA_RULES_KEPT and the stack as it was.
static inline int clua_runrules(lua_State *L, const int *refs, int first, int count, int table,
                                int handler, int budget, int *stop, int *status) {
    clua_context *ctx = clua_getcontext(L);
    for (int i = first; i < count; i++) {
        ctx->handback = 0;
        lua_rawgeti(L, LUA_REGISTRYINDEX, refs[i]);
        lua_pushvalue(L, table);
        clua_begincall(L, budget);
        int result = lua_pcall(L, 1, 2, handler);
        clua_endcall(L);
        if (result != LUA_OK) {
            *stop = CLUA_RULE_FAILED;
            *status = result;
            return i;
        }
        int first_type = lua_type(L, -2);
        int kept = lua_type(L, -1) == LUA_TNIL
            && (first_type == LUA_TNIL
                || (first_type == LUA_TBOOLEAN && lua_toboolean(L, -2))
                || (first_type == LUA_TTABLE && lua_rawequal(L, -2, table)));
        if (!kept || ctx->handback) {
            *stop = CLUA_RULE_RETURNED;
            return i;
        }
        lua_settop(L, table);
    }
    *stop = CLUA_RULES_KEPT;
    return count;
}

// ---- Libraries -------------------------------------------------------------------------

/// Opens one standard library by name into the globals ("_G" for the base library).
static inline void clua_openlib(lua_State *L, const char *name) {
    lua_CFunction fn = NULL;
    if (strcmp(name, "_G") == 0) fn = luaopen_base;
    else if (strcmp(name, "string") == 0) fn = luaopen_string;
    else if (strcmp(name, "table") == 0) fn = luaopen_table;
    else if (strcmp(name, "math") == 0) fn = luaopen_math;
    else if (strcmp(name, "utf8") == 0) fn = luaopen_utf8;
    else if (strcmp(name, "os") == 0) fn = luaopen_os;
    if (fn == NULL) return;
    luaL_requiref(L, name, fn, 1);
    lua_pop(L, 1);
}

#endif

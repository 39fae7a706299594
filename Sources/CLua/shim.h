// C shims for Lua 5.4's macros and the few pieces that must be written in C:
// the allocator with a memory cap, the instruction-budget hook, the trampoline that
// lets Swift functions raise Lua errors without unwinding Swift frames, the
// message handler that names the error's place, the loop that runs a toast's rules,
// the view that answers a rule's reads of its toast without a call into Swift, and the
// reading of a rule's compiled code that tells whether it can keep its toast's table.
// Only ToastLua imports this. SwiftPM does not see a change to this header (a system library
// target's): after editing it, `touch Sources/ToastLua/Lua/*.swift`, or the next incremental
// build keeps the old code.
#ifndef CLUA_SHIM_H
#define CLUA_SHIM_H

#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

// ---- The rules' toast, readable from C --------------------------------------------------

enum { CLUA_VIEW_FIELDS = 24, CLUA_VIEW_TEXT = 1024, CLUA_TRACKED_NAMES = 32, CLUA_VIEW_KEYSLOTS = 64 };

/// How a value of the view is read: ASK means C cannot say and Swift answers.
enum { CLUA_VALUE_ASK = 0, CLUA_VALUE_NIL, CLUA_VALUE_STRING, CLUA_VALUE_NUMBER, CLUA_VALUE_INTEGER,
       CLUA_VALUE_BOOLEAN };

typedef struct clua_viewvalue {
    int kind;
    size_t start, length;   // STRING: its bytes in the view's text
    lua_Number number;      // NUMBER
    lua_Integer integer;    // INTEGER, BOOLEAN as 0 or 1, REFERENCE
} clua_viewvalue;

/// The toast the rules' current table shows, as plain values a C `__index` reads without a
/// call into Swift (see clua_ruleindex). Swift fills it for each toast with the fields the
/// rules read, copying their text into `text`, and marks it not valid whenever
/// the table may show something else (a write, a role change, another toast). C reads only
/// this struct's own memory.
typedef struct clua_toastview {
    int valid;
    int fieldcount;
    const void *fieldkeys[CLUA_VIEW_FIELDS];    // every field's name, an interned Lua string
    // The positions of fieldkeys by address, open addressing (0: empty, else position + 1):
    // a name is found in a probe or two, where a scan would compare it with every field,
    // all of them for a name that is no field's (an extra field's).
    unsigned char keyslots[CLUA_VIEW_KEYSLOTS];
    clua_viewvalue values[CLUA_VIEW_FIELDS];    // by the same position
    int extrakind;          // ASK, NIL (no extra fields) or STRING (a JSON object's text)
    size_t extrastart, extralength;
    // Reads answered since Swift last looked, by field position and for extra fields: Swift
    // keeps in the view only what the rules read often.
    unsigned reads[CLUA_VIEW_FIELDS];
    unsigned extrareads;
    size_t textused;
    char text[CLUA_VIEW_TEXT];
} clua_toastview;

/// Per-state bookkeeping, reachable from the state's extra space.
typedef struct clua_context {
    size_t used;            // bytes currently allocated by the state
    size_t limit;           // cap enforced while `enforcing` (0: none)
    int enforcing;          // 1 while script code runs; 0 while Swift builds values
    int handback;           // set when Swift must see a rule's results (see clua_runrules)
    void *owner;            // the Swift object that owns the state
    lua_State *L;           // the state's main thread, for the memory cap's hook
    // The call ran out of its budget or its memory (1 or 2: see clua_counthook); the place of
    // the first stop, which every later raise in the call repeats.
    int stopped;
    char stopplace[256];
    clua_toastview view;    // the rules' toast (see clua_ruleindex)
    // Names the rules read once for the current toast, and names they read again for one
    // (see clua_remembers); whether the table of remembered values holds anything.
    const void *readonce[CLUA_TRACKED_NAMES];
    int readoncecount;
    const void *readagain[CLUA_TRACKED_NAMES];
    int readagaincount;
    int valuesfilled;
} clua_context;

/// A zeroed context with a memory cap of `limit` bytes (0: none).
static inline clua_context *clua_newcontext(size_t limit) {
    clua_context *ctx = (clua_context *)calloc(1, sizeof(clua_context));
    if (ctx != NULL) ctx->limit = limit;
    return ctx;
}

static inline void clua_freecontext(clua_context *ctx) { free(ctx); }

static inline clua_context *clua_getcontext(lua_State *L) {
    return *(clua_context **)lua_getextraspace(L);
}

static void clua_counthook(lua_State *L, lua_Debug *ar);

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

static inline lua_State *clua_newstate(clua_context *ctx) {
    lua_State *L = lua_newstate(clua_alloc, ctx);
    if (L == NULL) return NULL;
    ctx->L = L;
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

/// The budget ran out (the hook's count reached), or the memory cap was passed (`stopped` 2,
/// armed by the allocator): raises the error at the script's line. Re-armed at every
/// instruction so a script's own pcall cannot swallow the stop; every raise names the place
/// of the first, where the script really was (not where a pcall that caught it goes on).
static void clua_counthook(lua_State *L, lua_Debug *ar) {
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

/// Arms the budget for one call (count 0: no budget) and lets the memory cap bite.
static inline void clua_begincall(lua_State *L, int count) {
    clua_context *ctx = clua_getcontext(L);
    ctx->enforcing = 1;
    ctx->stopped = 0;
    ctx->stopplace[0] = 0;
    if (count > 0) lua_sethook(L, clua_counthook, LUA_MASKCOUNT, count);
}

/// Disarms what clua_begincall armed; after the memory cap stopped the call, collects what
/// it left behind, so the next call starts under the cap.
static inline void clua_endcall(lua_State *L) {
    clua_context *ctx = clua_getcontext(L);
    ctx->enforcing = 0;
    lua_sethook(L, NULL, 0, 0);
    if (ctx->stopped == 2) lua_gc(L, LUA_GCCOLLECT);
    ctx->stopped = 0;
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

// ---- Reading the rules' toast in C ---------------------------------------------------------

/// Where the probe for the field name at `key` starts in `keyslots`.
static inline unsigned clua_view_keyhash(const void *key) {
    return (unsigned)((((uintptr_t)key >> 4) * 0x9E3779B97F4A7C15ull) >> 58) & (CLUA_VIEW_KEYSLOTS - 1);
}

/// Swift names the fields once: `key` is the interned Lua string of the field at `field`.
/// (The slots are made again from every name: at most CLUA_VIEW_FIELDS of 64 are used, so a
/// probe always ends at an empty one.)
static inline void clua_view_setfieldkey(clua_context *ctx, int field, const void *key) {
    clua_toastview *view = &ctx->view;
    if (field < 0 || field >= CLUA_VIEW_FIELDS) return;
    view->fieldkeys[field] = key;
    if (field >= view->fieldcount) view->fieldcount = field + 1;
    memset(view->keyslots, 0, sizeof view->keyslots);
    for (int i = 0; i < view->fieldcount; i++) {
        if (view->fieldkeys[i] == NULL) continue;
        unsigned slot = clua_view_keyhash(view->fieldkeys[i]);
        while (view->keyslots[slot] != 0) slot = (slot + 1) & (CLUA_VIEW_KEYSLOTS - 1);
        view->keyslots[slot] = (unsigned char)(i + 1);
    }
}

/// The position of the field named by the Lua string at `key`; -1 when it names no field.
static inline int clua_view_fieldposition(const clua_toastview *view, const void *key) {
    for (unsigned slot = clua_view_keyhash(key);; slot = (slot + 1) & (CLUA_VIEW_KEYSLOTS - 1)) {
        int held = view->keyslots[slot];
        if (held == 0) return -1;
        if (view->fieldkeys[held - 1] == key) return held - 1;
    }
}

/// Swift fills the view for a toast: it starts over with every value unknown (ASK) ...
static inline void clua_view_begin(clua_context *ctx) {
    clua_toastview *view = &ctx->view;
    view->valid = 1;
    view->textused = 0;
    view->extrakind = CLUA_VALUE_ASK;
    for (int i = 0; i < view->fieldcount; i++) view->values[i].kind = CLUA_VALUE_ASK;
}

/// ... and sets the values it knows, by field position. Text that does not fit stays ASK.
static inline void clua_view_settext(clua_context *ctx, int field, const void *bytes, size_t length) {
    clua_toastview *view = &ctx->view;
    if (field < 0 || field >= view->fieldcount || length > CLUA_VIEW_TEXT - view->textused) return;
    if (length > 0) memcpy(view->text + view->textused, bytes, length);
    view->values[field] = (clua_viewvalue){ CLUA_VALUE_STRING, view->textused, length, 0, 0 };
    view->textused += length;
}

static inline void clua_view_setvalue(clua_context *ctx, int field, int kind, lua_Number number, lua_Integer integer) {
    clua_toastview *view = &ctx->view;
    if (field < 0 || field >= view->fieldcount || kind == CLUA_VALUE_STRING) return;
    view->values[field] = (clua_viewvalue){ kind, 0, 0, number, integer };
}

/// The extra fields: none (NIL), or the text of the JSON object the decoder checked.
static inline void clua_view_setextra(clua_context *ctx, int kind, const void *bytes, size_t length) {
    clua_toastview *view = &ctx->view;
    if (kind == CLUA_VALUE_NIL) {
        view->extrakind = CLUA_VALUE_NIL;
    } else if (kind == CLUA_VALUE_STRING && length <= CLUA_VIEW_TEXT - view->textused) {
        if (length > 0) memcpy(view->text + view->textused, bytes, length);
        view->extrakind = CLUA_VALUE_STRING;
        view->extrastart = view->textused;
        view->extralength = length;
        view->textused += length;
    }
}

/// The reads C answered for the field at `field` (-1: extra fields) since the last call.
static inline unsigned clua_view_takereads(clua_context *ctx, int field) {
    unsigned *count = field < 0 ? &ctx->view.extrareads
                    : field < CLUA_VIEW_FIELDS ? &ctx->view.reads[field] : NULL;
    if (count == NULL) return 0;
    unsigned reads = *count;
    *count = 0;
    return reads;
}

/// What clua_findmember found.
enum { CLUA_MEMBER_ABSENT = 0, CLUA_MEMBER_STRING, CLUA_MEMBER_TRUE, CLUA_MEMBER_FALSE, CLUA_MEMBER_OTHER };

static inline size_t clua_skipspace(const char *s, size_t n, size_t i) {
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) i++;
    return i;
}

/// The end of the JSON string starting at s[i] (its opening quote), past the closing quote;
/// *escaped tells whether it holds a backslash. n + 1 when it does not end.
static inline size_t clua_skipstring(const char *s, size_t n, size_t i, int *escaped) {
    *escaped = 0;
    for (i++; i < n; i++) {
        if (s[i] == '"') return i + 1;
        if (s[i] == '\\') { *escaped = 1; i++; }
    }
    return n + 1;
}

/// The end of the JSON value starting at s[i]; n + 1 when it does not end.
static inline size_t clua_skipvalue(const char *s, size_t n, size_t i) {
    int escaped;
    if (i >= n) return n + 1;
    if (s[i] == '"') return clua_skipstring(s, n, i, &escaped);
    if (s[i] == '{' || s[i] == '[') {
        int depth = 0;
        while (i < n) {
            char c = s[i];
            if (c == '"') { i = clua_skipstring(s, n, i, &escaped); continue; }
            if (c == '{' || c == '[') depth++;
            else if (c == '}' || c == ']') depth--;
            i++;
            if (depth == 0) return i;
        }
        return n + 1;
    }
    while (i < n && s[i] != ',' && s[i] != '}' && s[i] != ']' && s[i] != ' ' && s[i] != '\t'
           && s[i] != '\n' && s[i] != '\r') i++;
    return i;
}

/// Finds the member `name` in the text of a JSON object (the last one, as a decoded object
/// keeps it). A string without escapes comes back as its bytes (*start, *length); a name
/// with escapes, or text that is not what the decoder checked, gives OTHER, and so does a
/// value that is not a plain string or a boolean: Swift answers those.
static inline int clua_findmember(const char *s, size_t n, const char *name, size_t namelength,
                                  size_t *start, size_t *length) {
    int found = CLUA_MEMBER_ABSENT;
    size_t i = clua_skipspace(s, n, 0);
    if (i >= n || s[i] != '{') return CLUA_MEMBER_OTHER;
    i = clua_skipspace(s, n, i + 1);
    if (i < n && s[i] == '}') return CLUA_MEMBER_ABSENT;
    for (;;) {
        int escaped;
        if (i >= n || s[i] != '"') return CLUA_MEMBER_OTHER;
        size_t nameend = clua_skipstring(s, n, i, &escaped);
        if (nameend > n || escaped) return CLUA_MEMBER_OTHER;
        int matches = nameend - i - 2 == namelength && memcmp(s + i + 1, name, namelength) == 0;
        i = clua_skipspace(s, n, nameend);
        if (i >= n || s[i] != ':') return CLUA_MEMBER_OTHER;
        i = clua_skipspace(s, n, i + 1);
        // A string is scanned once, telling whether it has escapes as it goes.
        int isstring = i < n && s[i] == '"';
        size_t valueend = isstring ? clua_skipstring(s, n, i, &escaped) : clua_skipvalue(s, n, i);
        if (valueend > n) return CLUA_MEMBER_OTHER;
        if (matches) {
            if (isstring) {
                found = escaped ? CLUA_MEMBER_OTHER : CLUA_MEMBER_STRING;
                *start = i + 1;
                *length = valueend - i - 2;
            } else if (valueend - i == 4 && memcmp(s + i, "true", 4) == 0) {
                found = CLUA_MEMBER_TRUE;
            } else if (valueend - i == 5 && memcmp(s + i, "false", 5) == 0) {
                found = CLUA_MEMBER_FALSE;
            } else {
                found = CLUA_MEMBER_OTHER;
            }
        }
        i = clua_skipspace(s, n, valueend);
        if (i < n && s[i] == '}') return found;
        if (i >= n || s[i] != ',') return CLUA_MEMBER_OTHER;
        i = clua_skipspace(s, n, i + 1);
    }
}

/// Pushes what the view says for the key at `key` (a string) and returns 1, or returns 0
/// with nothing pushed when Swift must answer.
static inline int clua_pushviewvalue(lua_State *L, clua_toastview *view, int key) {
    int i = clua_view_fieldposition(view, lua_topointer(L, key));
    if (i >= 0) {
        const clua_viewvalue *value = &view->values[i];
        switch (value->kind) {
        case CLUA_VALUE_NIL: lua_pushnil(L); break;
        case CLUA_VALUE_STRING: lua_pushlstring(L, view->text + value->start, value->length); break;
        case CLUA_VALUE_NUMBER: lua_pushnumber(L, value->number); break;
        case CLUA_VALUE_INTEGER: lua_pushinteger(L, value->integer); break;
        case CLUA_VALUE_BOOLEAN: lua_pushboolean(L, (int)value->integer); break;
        default: return 0;
        }
        view->reads[i]++;
        return 1;
    }
    if (view->extrakind == CLUA_VALUE_ASK) return 0;
    view->extrareads++;
    if (view->extrakind == CLUA_VALUE_NIL) { lua_pushnil(L); return 1; }
    size_t namelength, start = 0, length = 0;
    const char *name = lua_tolstring(L, key, &namelength);
    switch (clua_findmember(view->text + view->extrastart, view->extralength, name, namelength, &start, &length)) {
    case CLUA_MEMBER_ABSENT: lua_pushnil(L); return 1;
    case CLUA_MEMBER_STRING: lua_pushlstring(L, view->text + view->extrastart + start, length); return 1;
    case CLUA_MEMBER_TRUE: lua_pushboolean(L, 1); return 1;
    case CLUA_MEMBER_FALSE: lua_pushboolean(L, 0); return 1;
    default: return 0;
    }
}

/// Whether a value read for the name `name` (a Lua string, by address) is remembered in the
/// table of values the rules read for this toast. Remembering costs a table write now and a
/// removal when the toast is done, which pays only for a name read again for the same toast:
/// so a name is remembered from its second read of a toast on, and from its first once that
/// has happened for any toast (rules read the same names of every toast). At most
/// CLUA_TRACKED_NAMES names are tracked; past that, every value is remembered.
static inline int clua_remembers(clua_context *ctx, const void *name) {
    for (int i = 0; i < ctx->readagaincount; i++) if (ctx->readagain[i] == name) return 1;
    for (int i = 0; i < ctx->readoncecount; i++) {
        if (ctx->readonce[i] != name) continue;
        if (ctx->readagaincount < CLUA_TRACKED_NAMES) ctx->readagain[ctx->readagaincount++] = name;
        return 1;
    }
    if (ctx->readoncecount >= CLUA_TRACKED_NAMES) return 1;
    ctx->readonce[ctx->readoncecount++] = name;
    return 0;
}

/// `__index` of the table of values the rules read for their current toast, `(values, key)`:
/// the view's value when it has one, else what the Swift reader (upvalue 1) says. A value
/// that is neither nil nor a table is remembered in `values` as clua_remembers says (the
/// Swift reader remembers its own).
static int clua_ruleindex(lua_State *L) {
    clua_context *ctx = clua_getcontext(L);
    // The view's values are pushed and remembered without the memory cap, as the Swift
    // reader (behind the trampoline) pushes and remembers its own.
    int enforcing = ctx->enforcing;
    ctx->enforcing = 0;
    int answered = ctx->view.valid && lua_type(L, 2) == LUA_TSTRING && clua_pushviewvalue(L, &ctx->view, 2);
    if (answered && lua_type(L, -1) != LUA_TNIL && clua_remembers(ctx, lua_topointer(L, 2))) {
        lua_pushvalue(L, 2);
        lua_pushvalue(L, -2);
        lua_rawset(L, 1);
        ctx->valuesfilled = 1;
    }
    ctx->enforcing = enforcing;
    if (answered) return 1;
    lua_settop(L, 2);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, 2, 1);
    return 1;
}

/// Pushes clua_ruleindex with the Swift reader at the top of the stack as its upvalue.
static inline void clua_pushruleindex(lua_State *L) { lua_pushcclosure(L, clua_ruleindex, 1); }

// ---- Rules that cannot keep their toast's table ------------------------------------------

/// A function's compiled code as lua_dump writes it: collected into a buffer.
typedef struct clua_dumpbuffer {
    unsigned char *bytes;
    size_t count, capacity;
    int failed;
} clua_dumpbuffer;

static int clua_dumpwriter(lua_State *L, const void *p, size_t size, void *ud) {
    (void)L;
    clua_dumpbuffer *buffer = (clua_dumpbuffer *)ud;
    if (buffer->count + size > buffer->capacity) {
        size_t capacity = buffer->capacity * 2 + size + 256;
        unsigned char *bytes = (unsigned char *)realloc(buffer->bytes, capacity);
        if (bytes == NULL) { buffer->failed = 1; return 1; }
        buffer->bytes = bytes;
        buffer->capacity = capacity;
    }
    memcpy(buffer->bytes + buffer->count, p, size);
    buffer->count += size;
    return 0;
}

/// Reads lua_dump's output (Lua 5.4's format, ldump.c) without trusting it: every read is
/// checked against the end, and a reader that ran out or met anything unexpected is `bad`.
typedef struct clua_dumpreader {
    const unsigned char *bytes;
    size_t count, at;
    int bad;
} clua_dumpreader;

static inline unsigned clua_readbyte(clua_dumpreader *r) {
    if (r->at >= r->count) { r->bad = 1; return 0; }
    return r->bytes[r->at++];
}

/// dumpSize: seven bits a byte, most significant first, the last byte marked by 0x80.
static inline size_t clua_readsize(clua_dumpreader *r) {
    size_t x = 0;
    for (int i = 0; i < 10 && !r->bad; i++) {
        unsigned b = clua_readbyte(r);
        x = (x << 7) | (b & 0x7f);
        if (b & 0x80) return x;
    }
    r->bad = 1;
    return 0;
}

static inline void clua_skipbytes(clua_dumpreader *r, size_t n) {
    if (n > r->count - r->at) { r->bad = 1; return; }
    r->at += n;
}

static inline void clua_skipdumpstring(clua_dumpreader *r) {
    size_t size = clua_readsize(r);
    if (size > 0) clua_skipbytes(r, size - 1);
}

/// Lua 5.4's opcodes, in lopcodes.h's order (checked against `luac5.4 -l`).
enum {
    CLUA_OP_MOVE, CLUA_OP_LOADI, CLUA_OP_LOADF, CLUA_OP_LOADK, CLUA_OP_LOADKX, CLUA_OP_LOADFALSE,
    CLUA_OP_LFALSESKIP, CLUA_OP_LOADTRUE, CLUA_OP_LOADNIL, CLUA_OP_GETUPVAL, CLUA_OP_SETUPVAL,
    CLUA_OP_GETTABUP, CLUA_OP_GETTABLE, CLUA_OP_GETI, CLUA_OP_GETFIELD, CLUA_OP_SETTABUP,
    CLUA_OP_SETTABLE, CLUA_OP_SETI, CLUA_OP_SETFIELD, CLUA_OP_NEWTABLE, CLUA_OP_SELF, CLUA_OP_ADDI,
    CLUA_OP_ADDK, CLUA_OP_SUBK, CLUA_OP_MULK, CLUA_OP_MODK, CLUA_OP_POWK, CLUA_OP_DIVK,
    CLUA_OP_IDIVK, CLUA_OP_BANDK, CLUA_OP_BORK, CLUA_OP_BXORK, CLUA_OP_SHRI, CLUA_OP_SHLI,
    CLUA_OP_ADD, CLUA_OP_SUB, CLUA_OP_MUL, CLUA_OP_MOD, CLUA_OP_POW, CLUA_OP_DIV, CLUA_OP_IDIV,
    CLUA_OP_BAND, CLUA_OP_BOR, CLUA_OP_BXOR, CLUA_OP_SHL, CLUA_OP_SHR, CLUA_OP_MMBIN,
    CLUA_OP_MMBINI, CLUA_OP_MMBINK, CLUA_OP_UNM, CLUA_OP_BNOT, CLUA_OP_NOT, CLUA_OP_LEN,
    CLUA_OP_CONCAT, CLUA_OP_CLOSE, CLUA_OP_TBC, CLUA_OP_JMP, CLUA_OP_EQ, CLUA_OP_LT, CLUA_OP_LE,
    CLUA_OP_EQK, CLUA_OP_EQI, CLUA_OP_LTI, CLUA_OP_LEI, CLUA_OP_GTI, CLUA_OP_GEI, CLUA_OP_TEST,
    CLUA_OP_TESTSET, CLUA_OP_CALL, CLUA_OP_TAILCALL, CLUA_OP_RETURN, CLUA_OP_RETURN0,
    CLUA_OP_RETURN1, CLUA_OP_FORLOOP, CLUA_OP_FORPREP, CLUA_OP_TFORPREP, CLUA_OP_TFORCALL,
    CLUA_OP_TFORLOOP, CLUA_OP_SETLIST, CLUA_OP_CLOSURE, CLUA_OP_VARARG, CLUA_OP_VARARGPREP,
    CLUA_OP_EXTRAARG
};
_Static_assert(CLUA_OP_GETFIELD == 14 && CLUA_OP_GEI == 65 && CLUA_OP_CALL == 68 && CLUA_OP_EXTRAARG == 82,
               "Lua 5.4's opcode numbers");

/// Whether one instruction leaves the toast (register 0, the function's first parameter)
/// where nothing can keep it: it may index the toast (read or write a field, through the
/// toast's own metamethods), compare it with a constant, test it, take its length, or return
/// it; it must not copy it anywhere, pass it to a function or a metamethod of another value,
/// or overwrite the register. Whatever is not known to be one of those is taken as keeping it.
static inline int clua_leavestoast(uint32_t i) {
    unsigned op = i & 0x7f, a = (i >> 7) & 0xff, k = (i >> 15) & 1, b = (i >> 16) & 0xff, c = (i >> 24) & 0xff;
    switch (op) {
    // Register 0 is read only where the toast is indexed, tested or returned.
    case CLUA_OP_GETTABLE: return a != 0 && c != 0;               // R[A] := R[B][R[C]]
    case CLUA_OP_GETI: case CLUA_OP_GETFIELD: return a != 0;      // R[A] := R[B][...]
    case CLUA_OP_SETTABLE: return b != 0 && (k || c != 0);        // R[A][R[B]] := RK(C)
    case CLUA_OP_SETI: case CLUA_OP_SETFIELD: return k || c != 0; // R[A][...] := RK(C)
    case CLUA_OP_EQK: case CLUA_OP_EQI: case CLUA_OP_LTI: case CLUA_OP_LEI: case CLUA_OP_GTI: case CLUA_OP_GEI:
    case CLUA_OP_TEST:
        return 1;                                                 // compares R[A] with a constant
    case CLUA_OP_NOT: case CLUA_OP_LEN: return a != 0;            // R[A] := not R[B], #R[B]
    case CLUA_OP_RETURN: case CLUA_OP_RETURN0: case CLUA_OP_RETURN1: return 1;
    // Reads no register, writes R[A] (LOADNIL and VARARG: from R[A] on), or touches none.
    case CLUA_OP_LOADI: case CLUA_OP_LOADF: case CLUA_OP_LOADK: case CLUA_OP_LOADKX: case CLUA_OP_LOADFALSE:
    case CLUA_OP_LFALSESKIP: case CLUA_OP_LOADTRUE: case CLUA_OP_LOADNIL: case CLUA_OP_GETUPVAL:
    case CLUA_OP_GETTABUP: case CLUA_OP_NEWTABLE: case CLUA_OP_CLOSURE: case CLUA_OP_VARARG:
        return a != 0;
    case CLUA_OP_JMP: case CLUA_OP_VARARGPREP: case CLUA_OP_EXTRAARG: case CLUA_OP_CLOSE: return 1;
    // Reads and writes other registers: fine unless one of them is register 0.
    case CLUA_OP_MOVE: case CLUA_OP_TESTSET: return a != 0 && b != 0;   // R[A] := R[B]
    case CLUA_OP_SETUPVAL: return a != 0;                         // UpValue[B] := R[A]
    case CLUA_OP_SETTABUP: return k || c != 0;                    // UpValue[A][K[B]] := RK(C)
    case CLUA_OP_SELF: return a != 0 && b != 0 && (k || c != 0);
    case CLUA_OP_UNM: case CLUA_OP_BNOT: return a != 0 && b != 0;
    case CLUA_OP_MMBIN: case CLUA_OP_EQ: case CLUA_OP_LT: case CLUA_OP_LE: return a != 0 && b != 0;
    case CLUA_OP_MMBINI: case CLUA_OP_MMBINK: return a != 0;
    // Registers from R[A] on (a call's function and arguments, a concatenation, a loop's).
    case CLUA_OP_CONCAT: case CLUA_OP_CALL: case CLUA_OP_TAILCALL: case CLUA_OP_SETLIST: case CLUA_OP_TBC:
    case CLUA_OP_FORLOOP: case CLUA_OP_FORPREP: case CLUA_OP_TFORPREP: case CLUA_OP_TFORCALL: case CLUA_OP_TFORLOOP:
        return a != 0;
    default:
        if (op >= CLUA_OP_ADDI && op <= CLUA_OP_SHLI) return a != 0 && b != 0;   // R[A] := R[B] op K/sC
        if (op >= CLUA_OP_ADD && op <= CLUA_OP_SHR) return a != 0 && b != 0 && c != 0;
        return 0;
    }
}

/// Skips the constants of a function in a dump; 0 when one is of a kind Lua 5.4 does not dump.
static inline int clua_skipconstants(clua_dumpreader *r) {
    size_t constants = clua_readsize(r);
    for (size_t n = 0; !r->bad && n < constants; n++) {
        switch (clua_readbyte(r)) {
        case 0x00: case 0x01: case 0x11: break;                             // nil, false, true
        case 0x03: clua_skipbytes(r, sizeof(lua_Integer)); break;
        case 0x13: clua_skipbytes(r, sizeof(lua_Number)); break;
        case 0x04: case 0x14: clua_skipdumpstring(r); break;               // short, long string
        default: return 0;
        }
    }
    return !r->bad;
}

/// Skips one function of a dump made inside the rule; 0 when, with `checkcapture`, one of its
/// upvalues is the rule's register 0 (the toast), or the dump is not as expected.
static int clua_skipproto(clua_dumpreader *r, int checkcapture) {
    clua_skipdumpstring(r);                 // source
    clua_readsize(r);                       // linedefined
    clua_readsize(r);                       // lastlinedefined
    clua_skipbytes(r, 3);                   // numparams, is_vararg, maxstacksize
    size_t code = clua_readsize(r);
    if (r->bad || code > (r->count - r->at) / 4) return 0;
    clua_skipbytes(r, code * 4);
    if (!clua_skipconstants(r)) return 0;
    size_t upvalues = clua_readsize(r);
    for (size_t n = 0; !r->bad && n < upvalues; n++) {
        unsigned instack = clua_readbyte(r), index = clua_readbyte(r);
        clua_readbyte(r);                   // kind
        if (checkcapture && instack && index == 0) return 0;
    }
    size_t protos = clua_readsize(r);
    for (size_t n = 0; !r->bad && n < protos; n++) {
        if (!clua_skipproto(r, 0)) return 0;
    }
    // Debug information (empty in a stripped dump, skipped all the same).
    clua_skipbytes(r, clua_readsize(r));    // line info
    size_t count = clua_readsize(r);        // absolute line info: pc, line
    for (size_t n = 0; !r->bad && n < count; n++) { clua_readsize(r); clua_readsize(r); }
    count = clua_readsize(r);               // local variables: name, start, end
    for (size_t n = 0; !r->bad && n < count; n++) { clua_skipdumpstring(r); clua_readsize(r); clua_readsize(r); }
    count = clua_readsize(r);               // upvalue names
    for (size_t n = 0; !r->bad && n < count; n++) clua_skipdumpstring(r);
    return !r->bad;
}

/// Whether the Lua function at `index` can never keep the table it gets as its first argument:
/// from its compiled code (lua_dump), no instruction lets register 0 go anywhere but into the
/// toast table's own metamethods, and no function made inside it captures that register. A C
/// function, code that cannot be read, or anything unexpected gives 0.
static inline int clua_leavesfirstargument(lua_State *L, int index) {
    if (!lua_isfunction(L, index) || lua_iscfunction(L, index)) return 0;
    clua_dumpbuffer buffer = { NULL, 0, 0, 0 };
    lua_pushvalue(L, index);
    int status = lua_dump(L, clua_dumpwriter, &buffer, 1);
    lua_pop(L, 1);
    int leaves = 0;
    if (status == 0 && !buffer.failed) {
        clua_dumpreader r = { buffer.bytes, buffer.count, 0, 0 };
        static const unsigned char header[] = { 0x1b, 'L', 'u', 'a', 0x54, 0, 0x19, 0x93, '\r', '\n', 0x1a, '\n', 4,
                                                (unsigned char)sizeof(lua_Integer), (unsigned char)sizeof(lua_Number) };
        int ok = r.count >= sizeof(header) && memcmp(r.bytes, header, sizeof(header)) == 0;
        r.at = sizeof(header);
        clua_skipbytes(&r, sizeof(lua_Integer) + sizeof(lua_Number) + 1);   // LUAC_INT, LUAC_NUM, upvalue count
        clua_skipdumpstring(&r);                                            // source
        clua_readsize(&r);                                                  // linedefined
        clua_readsize(&r);                                                  // lastlinedefined
        unsigned params = clua_readbyte(&r);
        unsigned vararg = clua_readbyte(&r);
        clua_readbyte(&r);                                                  // maxstacksize
        size_t codesize = clua_readsize(&r);
        ok = ok && !r.bad && codesize <= (r.count - r.at) / 4;
        for (size_t pc = 0; ok && pc < codesize; pc++) {
            uint32_t i;
            memcpy(&i, r.bytes + r.at + pc * 4, 4);
            // Without parameters the toast is reachable only as a vararg.
            if (params == 0) ok = !(vararg && (i & 0x7f) == CLUA_OP_VARARG);
            else ok = clua_leavestoast(i);
        }
        if (ok) clua_skipbytes(&r, codesize * 4);
        ok = ok && clua_skipconstants(&r);
        size_t upvalues = ok ? clua_readsize(&r) : 0;
        if (ok) clua_skipbytes(&r, upvalues * 3);
        size_t protos = ok ? clua_readsize(&r) : 0;
        // A function made inside may capture register 0 (an upvalue "in stack" at index 0):
        // its upvalue list comes after its code and constants, so each is read far enough.
        for (size_t n = 0; ok && !r.bad && n < protos; n++) ok = clua_skipproto(&r, params > 0);
        leaves = ok && !r.bad;
    }
    free(buffer.bytes);
    return leaves;
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

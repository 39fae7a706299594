// The C half of the Lua bridge, for ToastLua alone: what must be written in C (the allocator
// with a memory cap, the instruction budget, the trampoline that lets Swift functions raise
// Lua errors without unwinding Swift frames, the message handler that names an error's place,
// the loop that runs a toast's rules, the view that answers a rule's reads of its toast
// without a call into Swift, the reading of a rule's compiled code) and inline shims for
// Lua's macros, which Swift cannot import. Each structure is one file of this target.
#ifndef CLUA_BRIDGE_H
#define CLUA_BRIDGE_H

#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>
#include <stddef.h>
#include <stdint.h>

// ---- The state's bookkeeping (context.c, view.c) ------------------------------------------

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
/// rules read, copying their text into `text`; it answers only while `generation` is the
/// context's (see clua_context). C reads only this struct's own memory.
typedef struct clua_toastview {
    unsigned long generation;   // the context's generation when filled (0: never)
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
///
/// What may be cached about the rules' table, and when it is stale, is one rule: `generation`
/// counts what the table shows, and Swift bumps it (`LuaState.tableChanged`) whenever that may
/// change — the table shows another toast, a script writes to a toast table, a table-valued
/// extra field moves into the table, a role changes, the table is retired. A cached value
/// carries the generation it was filled at and is used only at that generation: the view
/// (clua_ruleindex), the names read once (clua_remembers), and a rule's run (clua_runrules
/// hands a rule's results to Swift when the generation moved during its call). The one cache
/// Lua reads without asking C, the table of remembered values, is emptied by the bump itself.
typedef struct clua_context {
    size_t used;            // bytes currently allocated by the state
    size_t limit;           // cap enforced while `enforcing` (0: none)
    int enforcing;          // 1 while script code runs; 0 while Swift builds values
    unsigned long generation;   // what the rules' table shows (starts at 1)
    void *owner;            // the Swift object that owns the state
    lua_State *L;           // the state's main thread, for the memory cap's hook
    // The call ran out of its budget or its memory (1 or 2: see clua_counthook); the place of
    // the first stop, which every later raise in the call repeats.
    int stopped;
    char stopplace[256];
    clua_toastview view;    // the rules' toast (see clua_ruleindex)
    // Names the rules read once at `readoncegeneration`, and names they read again at one
    // generation (see clua_remembers); whether the table of remembered values holds anything.
    const void *readonce[CLUA_TRACKED_NAMES];
    int readoncecount;
    unsigned long readoncegeneration;
    const void *readagain[CLUA_TRACKED_NAMES];
    int readagaincount;
    int valuesfilled;
} clua_context;

/// A zeroed context with a memory cap of `limit` bytes (0: none).
clua_context *clua_newcontext(size_t limit);
void clua_freecontext(clua_context *ctx);
/// A new state whose allocations `ctx` counts and caps, with `ctx` in its extra space.
lua_State *clua_newstate(clua_context *ctx);

static inline clua_context *clua_getcontext(lua_State *L) {
    return *(clua_context **)lua_getextraspace(L);
}

// ---- Macros Swift cannot import ------------------------------------------------------------

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

// ---- Swift functions exposed to Lua, errors with a place (trampoline.c) ---------------------

/// A Swift function callable from Lua. It returns the number of results, or
/// CLUA_RAISE_WHERE / CLUA_RAISE with the error value on top of the stack; the
/// trampoline raises it, so no Lua error ever unwinds a Swift frame.
typedef int (*clua_SwiftFunction)(lua_State *L);
enum { CLUA_RAISE_WHERE = -1, CLUA_RAISE = -2 };

/// Pushes `fn` as a Lua function; upvalue 1 is the function pointer, then `nup`
/// upvalues taken from the stack.
void clua_pushswiftfunction(lua_State *L, clua_SwiftFunction fn, int nup);
/// Pushes the message handler for lua_pcall that gives an error its "FILE:LINE: " place.
void clua_pushmsghandler(lua_State *L);

// ---- The instruction budget (budget.c; arming it is inline, around every call) -----------------------------------------------------

/// The count hook that stops a call: the budget ran out, or the memory cap was passed.
void clua_counthook(lua_State *L, lua_Debug *ar);

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

// ---- The rules' call (rules.c) -------------------------------------------------------------

/// Where clua_runrules stopped.
enum { CLUA_RULES_KEPT = 0, CLUA_RULE_RETURNED = 1, CLUA_RULE_FAILED = 2 };

int clua_runrules(lua_State *L, const int *refs, int first, int count, int table,
                  int handler, int budget, int *stop, int *status);

// ---- The view of the rules' toast and their `__index` (view.c) ------------------------------

/// Whether a value read for the name `name` (a Lua string, by address) is remembered in the
/// table of values the rules read for this toast.
int clua_remembers(clua_context *ctx, const void *name);
/// Pushes clua_ruleindex with the Swift reader at the top of the stack as its upvalue.
void clua_pushruleindex(lua_State *L);

void clua_view_setfieldkey(clua_context *ctx, int field, const void *key);
void clua_view_begin(clua_context *ctx);
void clua_view_settext(clua_context *ctx, int field, const void *bytes, size_t length);
void clua_view_setvalue(clua_context *ctx, int field, int kind, lua_Number number, lua_Integer integer);
void clua_view_setextra(clua_context *ctx, int kind, const void *bytes, size_t length);
unsigned clua_view_takereads(clua_context *ctx, int field);

// ---- Rules that cannot keep their toast's table (bytecode.c) --------------------------------

/// Whether the Lua function at `index` can never keep the table it gets as its first argument.
int clua_leavesfirstargument(lua_State *L, int index);

// ---- Libraries (libraries.c) ---------------------------------------------------------------

/// Opens one standard library by name into the globals ("_G" for the base library).
void clua_openlib(lua_State *L, const char *name);

#endif

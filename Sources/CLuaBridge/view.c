// The view of the rules' toast: plain values that the rules' `__index` (clua_ruleindex) reads
// without a call into Swift, and the names whose values it remembers.
#include "CLuaBridge.h"
#include <string.h>

/// What clua_findmember found.
enum { CLUA_MEMBER_ABSENT = 0, CLUA_MEMBER_STRING, CLUA_MEMBER_TRUE, CLUA_MEMBER_FALSE, CLUA_MEMBER_OTHER };

/// Where the probe for the field name at `key` starts in `keyslots`.
static inline unsigned clua_view_keyhash(const void *key) {
    return (unsigned)((((uintptr_t)key >> 4) * 0x9E3779B97F4A7C15ull) >> 58) & (CLUA_VIEW_KEYSLOTS - 1);
}

/// Swift names the fields once: `key` is the interned Lua string of the field at `field`.
/// (The slots are made again from every name: at most CLUA_VIEW_FIELDS of 64 are used, so a
/// probe always ends at an empty one.)
void clua_view_setfieldkey(clua_context *ctx, int field, const void *key) {
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
void clua_view_begin(clua_context *ctx) {
    clua_toastview *view = &ctx->view;
    view->generation = ctx->generation;
    view->textused = 0;
    view->extrakind = CLUA_VALUE_ASK;
    for (int i = 0; i < view->fieldcount; i++) view->values[i].kind = CLUA_VALUE_ASK;
}

/// ... and sets the values it knows, by field position. Text that does not fit stays ASK.
void clua_view_settext(clua_context *ctx, int field, const void *bytes, size_t length) {
    clua_toastview *view = &ctx->view;
    if (field < 0 || field >= view->fieldcount || length > CLUA_VIEW_TEXT - view->textused) return;
    if (length > 0) memcpy(view->text + view->textused, bytes, length);
    view->values[field] = (clua_viewvalue){ CLUA_VALUE_STRING, view->textused, length, 0, 0 };
    view->textused += length;
}

void clua_view_setvalue(clua_context *ctx, int field, int kind, lua_Number number, lua_Integer integer) {
    clua_toastview *view = &ctx->view;
    if (field < 0 || field >= view->fieldcount || kind == CLUA_VALUE_STRING) return;
    view->values[field] = (clua_viewvalue){ kind, 0, 0, number, integer };
}

/// The extra fields: none (NIL), or the text of the JSON object the decoder checked.
void clua_view_setextra(clua_context *ctx, int kind, const void *bytes, size_t length) {
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
unsigned clua_view_takereads(clua_context *ctx, int field) {
    unsigned *count = field < 0 ? &ctx->view.extrareads
                    : field < CLUA_VIEW_FIELDS ? &ctx->view.reads[field] : NULL;
    if (count == NULL) return 0;
    unsigned reads = *count;
    *count = 0;
    return reads;
}


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
static int clua_pushviewvalue(lua_State *L, clua_toastview *view, int key) {
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
int clua_remembers(clua_context *ctx, const void *name) {
    if (ctx->readoncegeneration != ctx->generation) {
        ctx->readoncegeneration = ctx->generation;
        ctx->readoncecount = 0;
    }
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
    int answered = ctx->view.generation == ctx->generation && lua_type(L, 2) == LUA_TSTRING && clua_pushviewvalue(L, &ctx->view, 2);
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
void clua_pushruleindex(lua_State *L) { lua_pushcclosure(L, clua_ruleindex, 1); }

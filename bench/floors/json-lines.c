// A floor for toastscript's reading thread and its rules stage: the least a program does to
// read JSON Lines from stdin, check every line as JSON (strings and their escapes, UTF-8,
// numbers, literals, nesting) and find the members a show needs (`type`, `at`, `id`,
// `message`, `subtitle`, `role`, `source`, `key`; the others copied out as the text of one
// object, as toastscript keeps extra fields), with roles and sources as small integers.
//
// With `--rules FILE --fields a,b,...` it also runs FILE's rules (`rule(name, fn)`, as in
// bench/rules.lua) on each show through the Lua 5.4 C API: the named fields set in one plain
// table reused for every show, one protected call a rule, no budget and no memory cap, and
// `message` read back. What it prints (shows, rejected lines, drops, changed messages) keeps
// the compiler from leaving work out and matches `toastscript --stats` on the same lines.
//
//   cc -O2 -I/usr/include/lua5.4 -o json-lines json-lines.c -llua5.4
//   ./json-lines [--rules bench/rules.lua --fields role,level,message] < events.jsonl
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct { size_t start, length; } span;   // a value's bytes in its line (strings: with quotes)

typedef struct {
    span type, id, message, subtitle, role, source, key;
    int64_t at;                 // microseconds
    int role_number, source_number;
} show;

// ---- Checking ----------------------------------------------------------------------------

static int valid_utf8(const unsigned char *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i];
        if (c < 0x80) { i++; continue; }
        size_t need = c >= 0xC2 && c <= 0xDF ? 1 : c >= 0xE0 && c <= 0xEF ? 2 : c >= 0xF0 && c <= 0xF4 ? 3 : 0;
        if (need == 0 || i + need >= n) return 0;
        for (size_t k = 1; k <= need; k++) {
            if ((s[i + k] & 0xC0) != 0x80) return 0;
        }
        if ((c == 0xE0 && s[i + 1] < 0xA0) || (c == 0xED && s[i + 1] > 0x9F)
            || (c == 0xF0 && s[i + 1] < 0x90) || (c == 0xF4 && s[i + 1] > 0x8F)) return 0;
        i += need + 1;
    }
    return 1;
}

static size_t skip_space(const unsigned char *s, size_t n, size_t i) {
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r')) i++;
    return i;
}

// The end of the string whose opening quote is at i (past its closing quote), or 0.
static size_t string_end(const unsigned char *s, size_t n, size_t i) {
    size_t start = ++i;
    int high = 0;
    while (i < n) {
        unsigned c = s[i];
        if (c == '"') return high && !valid_utf8(s + start, i - start) ? 0 : i + 1;
        if (c == '\\') {
            if (i + 1 >= n || !strchr("\"\\/bfnrtu", s[i + 1])) return 0;
            i += 2;
            continue;
        }
        if (c < 0x20) return 0;
        high |= c & 0x80;
        i++;
    }
    return 0;
}

// The end of the number at i, or 0; its value in microseconds when `micros` is given.
static size_t number_end(const unsigned char *s, size_t n, size_t i, int64_t *micros) {
    int64_t value = 0;
    int fraction = -1;
    if (i < n && s[i] == '-') i++;
    if (i >= n || s[i] < '0' || s[i] > '9') return 0;
    while (i < n && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.')) {
        if (s[i] == '.') {
            if (fraction >= 0) return 0;
            fraction = 0;
        } else {
            value = value * 10 + (s[i] - '0');
            if (fraction >= 0) fraction++;
        }
        i++;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-')) i++;
        while (i < n && s[i] >= '0' && s[i] <= '9') i++;
    }
    if (micros) {
        for (int digits = fraction < 0 ? 0 : fraction; digits < 6; digits++) value *= 10;
        *micros = value;
    }
    return i;
}

static size_t value_end(const unsigned char *s, size_t n, size_t i, int depth) {
    if (i >= n || depth > 64) return 0;
    switch (s[i]) {
    case '"': return string_end(s, n, i);
    case 't': return n - i >= 4 && !memcmp(s + i, "true", 4) ? i + 4 : 0;
    case 'f': return n - i >= 5 && !memcmp(s + i, "false", 5) ? i + 5 : 0;
    case 'n': return n - i >= 4 && !memcmp(s + i, "null", 4) ? i + 4 : 0;
    case '{':
    case '[': {
        unsigned char close = s[i] == '{' ? '}' : ']';
        int object = s[i] == '{';
        i = skip_space(s, n, i + 1);
        if (i < n && s[i] == close) return i + 1;
        for (;;) {
            if (object) {
                if (i >= n || s[i] != '"' || !(i = string_end(s, n, i))) return 0;
                i = skip_space(s, n, i);
                if (i >= n || s[i] != ':') return 0;
                i = skip_space(s, n, i + 1);
            }
            if (!(i = value_end(s, n, i, depth + 1))) return 0;
            i = skip_space(s, n, i);
            if (i < n && s[i] == ',') { i = skip_space(s, n, i + 1); continue; }
            return i < n && s[i] == close ? i + 1 : 0;
        }
    }
    default: return number_end(s, n, i, NULL);
    }
}

// ---- Small integers for repeated values --------------------------------------------------

static const char *const roles[] = { "info", "success", "warning", "error" };
static const size_t role_lengths[] = { 4, 7, 7, 5 };

enum { MAX_SOURCES = 256, MAX_SOURCE_LENGTH = 32 };
static char sources[MAX_SOURCES][MAX_SOURCE_LENGTH];
static size_t source_lengths[MAX_SOURCES];
static int source_count;

static int role_number(const unsigned char *text, size_t length) {
    for (int k = 0; k < 4; k++) {
        if (length == role_lengths[k] && !memcmp(text, roles[k], length)) return k;
    }
    return -1;
}

static int source_number(const unsigned char *text, size_t length) {
    for (int k = 0; k < source_count; k++) {
        if (source_lengths[k] == length && !memcmp(sources[k], text, length)) return k;
    }
    if (source_count == MAX_SOURCES || length >= MAX_SOURCE_LENGTH) return -1;
    memcpy(sources[source_count], text, length);
    source_lengths[source_count] = length;
    return source_count++;
}

// ---- One line ----------------------------------------------------------------------------

static unsigned char extra[1 << 16];   // the other members, as the text of one object
static size_t extra_length;

/// Whether the member name at `name` is the string literal `word`.
#define NAMES(name, length, word) ((length) == sizeof(word) - 1 && !memcmp((name), (word), sizeof(word) - 1))

// Finds the line's members; 0 when it is not a JSON object.
static int read_line(const unsigned char *s, size_t n, show *found) {
    memset(found, 0, sizeof *found);
    extra_length = 0;
    size_t i = skip_space(s, n, 0);
    if (i >= n || s[i] != '{') return 0;
    i = skip_space(s, n, i + 1);
    if (i < n && s[i] == '}') return skip_space(s, n, i + 1) == n;
    for (;;) {
        if (i >= n || s[i] != '"') return 0;
        size_t name_start = i + 1, name_end = string_end(s, n, i);
        if (!name_end) return 0;
        const unsigned char *name = s + name_start;
        size_t name_length = name_end - 1 - name_start;
        i = skip_space(s, n, name_end);
        if (i >= n || s[i] != ':') return 0;
        size_t start = skip_space(s, n, i + 1);
        int is_at = NAMES(name, name_length, "at") && start < n && s[start] != '"';
        size_t end = is_at ? number_end(s, n, start, &found->at) : value_end(s, n, start, 1);
        if (!end) return 0;
        span value = { start, end - start };
        int is_string = !is_at && s[start] == '"';
        if (is_at) {
            // kept in found->at by number_end
        } else if (is_string && NAMES(name, name_length, "type")) {
            found->type = value;
        } else if (is_string && NAMES(name, name_length, "id")) {
            found->id = value;
        } else if (is_string && NAMES(name, name_length, "message")) {
            found->message = value;
        } else if (is_string && NAMES(name, name_length, "subtitle")) {
            found->subtitle = value;
        } else if (is_string && NAMES(name, name_length, "role")) {
            found->role = value;
            found->role_number = role_number(s + start + 1, value.length - 2);
        } else if (is_string && NAMES(name, name_length, "source")) {
            found->source = value;
            found->source_number = source_number(s + start + 1, value.length - 2);
        } else if (is_string && NAMES(name, name_length, "key")) {
            found->key = value;
        } else if (extra_length + (end - name_start) + 3 < sizeof extra) {
            extra[extra_length] = extra_length == 0 ? '{' : ',';
            extra_length++;
            memcpy(extra + extra_length, s + name_start - 1, end - name_start + 1);
            extra_length += end - name_start + 1;
        }
        i = skip_space(s, n, end);
        if (i < n && s[i] == ',') { i = skip_space(s, n, i + 1); continue; }
        if (i < n && s[i] == '}') {
            if (extra_length > 0) extra[extra_length++] = '}';
            return skip_space(s, n, i + 1) == n;
        }
        return 0;
    }
}

// ---- Rules through the C API -------------------------------------------------------------

static lua_State *L;
static int table_reference, rule_count, rule_references[64];
enum field_kind { FIELD_MESSAGE, FIELD_SUBTITLE, FIELD_ROLE, FIELD_SOURCE, FIELD_ID, FIELD_AT, FIELD_EXTRA };
static struct { const char *name; enum field_kind kind; } fields[16];
static int field_count;
static long dropped, changed;

static int collect_rule(lua_State *state) {
    luaL_checktype(state, 2, LUA_TFUNCTION);
    if (rule_count == 64) return luaL_error(state, "too many rules");
    lua_pushvalue(state, 2);
    rule_references[rule_count++] = luaL_ref(state, LUA_REGISTRYINDEX);
    return 0;
}

// The value of `name` in an extra member `"name":"value"` (a plain string), if there is one.
static span extra_string(const char *name) {
    span none = { 0, 0 };
    size_t length = strlen(name);
    for (size_t k = 1; k + length + 4 < extra_length; k++) {
        if (extra[k] == '"' && !memcmp(extra + k + 1, name, length) && extra[k + length + 1] == '"'
            && extra[k + length + 2] == ':' && extra[k + length + 3] == '"') {
            size_t start = k + length + 3, end = string_end(extra, extra_length, start);
            return end ? (span){ start, end - start } : none;
        }
    }
    return none;
}

static void set_text(int table, const char *name, const unsigned char *base, span value) {
    if (value.length >= 2) {
        lua_pushlstring(L, (const char *)base + value.start + 1, value.length - 2);
    } else {
        lua_pushnil(L);
    }
    lua_setfield(L, table, name);
}

static void run_rules(const unsigned char *s, const show *found) {
    lua_settop(L, 0);
    lua_rawgeti(L, LUA_REGISTRYINDEX, table_reference);
    int table = lua_gettop(L);
    for (int f = 0; f < field_count; f++) {
        const char *name = fields[f].name;
        switch (fields[f].kind) {
        case FIELD_MESSAGE: set_text(table, name, s, found->message); break;
        case FIELD_SUBTITLE: set_text(table, name, s, found->subtitle); break;
        case FIELD_ROLE: set_text(table, name, s, found->role); break;
        case FIELD_SOURCE: set_text(table, name, s, found->source); break;
        case FIELD_ID: set_text(table, name, s, found->id); break;
        case FIELD_AT: lua_pushnumber(L, (double)found->at / 1e6); lua_setfield(L, table, name); break;
        case FIELD_EXTRA: set_text(table, name, extra, extra_string(name)); break;
        }
    }
    for (int r = 0; r < rule_count; r++) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, rule_references[r]);
        lua_pushvalue(L, table);
        if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
            lua_pop(L, 1);
            continue;
        }
        if (lua_type(L, -1) == LUA_TBOOLEAN && !lua_toboolean(L, -1)) {
            dropped++;
            return;
        }
        lua_pop(L, 1);
    }
    lua_getfield(L, table, "message");
    size_t length;
    const char *message = lua_tolstring(L, -1, &length);
    if (message && (length != found->message.length - 2 || memcmp(message, s + found->message.start + 1, length))) changed++;
}

static void load_rules(const char *path, char *field_list) {
    L = luaL_newstate();
    luaL_openlibs(L);
    lua_register(L, "rule", collect_rule);
    if (luaL_dofile(L, path) != LUA_OK) {
        fprintf(stderr, "json-lines: %s\n", lua_tostring(L, -1));
        exit(1);
    }
    lua_newtable(L);
    table_reference = luaL_ref(L, LUA_REGISTRYINDEX);
    // Every field named is set for each show (nil when the show has none), so a field a rule
    // writes is to be named too, or the next show's table keeps it.
    static const char *const known[] = { "message", "subtitle", "role", "source", "id", "at" };
    for (char *name = strtok(field_list, ","); name && field_count < 16; name = strtok(NULL, ",")) {
        enum field_kind kind = FIELD_EXTRA;
        for (int k = 0; k < 6; k++) {
            if (!strcmp(name, known[k])) kind = (enum field_kind)k;
        }
        fields[field_count].name = name;
        fields[field_count++].kind = kind;
    }
}

int main(int argc, char **argv) {
    const char *rules = NULL;
    char *field_list = NULL;
    for (int a = 1; a + 1 < argc; a += 2) {
        if (!strcmp(argv[a], "--rules")) rules = argv[a + 1];
        else if (!strcmp(argv[a], "--fields")) field_list = argv[a + 1];
    }
    static char message_only[] = "message";
    if (rules) load_rules(rules, field_list ? field_list : message_only);

    static unsigned char buffer[1 << 18];
    size_t have = 0;
    ssize_t got;
    long shows = 0, rejected = 0;
    int64_t checksum = 0;
    while ((got = read(0, buffer + have, sizeof buffer - have)) > 0) {
        have += (size_t)got;
        size_t start = 0;
        unsigned char *newline;
        while ((newline = memchr(buffer + start, '\n', have - start)) != NULL) {
            size_t length = (size_t)(newline - (buffer + start));
            show found;
            if (!read_line(buffer + start, length, &found)) {
                rejected++;
            } else if (found.message.length >= 2) {
                shows++;
                checksum += found.at + found.role_number + found.source_number + (int64_t)extra_length;
                if (rules) run_rules(buffer + start, &found);
            }
            start += length + 1;
        }
        memmove(buffer, buffer + start, have - start);
        have -= start;
    }
    printf("shows %ld, rejected %ld, dropped by rules %ld, messages changed %ld (checksum %lld)\n",
           shows, rejected, dropped, changed, (long long)checksum);
    return 0;
}

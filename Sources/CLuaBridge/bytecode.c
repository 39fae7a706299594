// Whether a rule can keep its toast's table, read from the rule's compiled code.
#include "CLuaBridge.h"
#include <stdlib.h>
#include <string.h>

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
int clua_leavesfirstargument(lua_State *L, int index) {
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

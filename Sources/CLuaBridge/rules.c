// The rules' call: a toast's rules run from one C loop, one protected call each.
#include "CLuaBridge.h"

/// Runs the rules whose functions are in the registry at refs[first..count-1] on the toast
/// table at `table`: each one a protected call (message handler at `handler`) with its own
/// instruction budget, as one call from Swift for a toast instead of one per rule. Goes on
/// while a rule keeps the toast as it is: it returns nothing, true or the table itself, and
/// what the table shows did not change during its call (the context's generation: a write to
/// a toast table, or a role change, moves it). Returns the position
/// of the first rule that did anything else, with *stop = CLUA_RULE_RETURNED (its two results
/// on the stack above `table`) or CLUA_RULE_FAILED (*status the pcall status, the error value
/// above `table`); or `count` with *stop = CLUA_RULES_KEPT and the stack as it was.
int clua_runrules(lua_State *L, const int *refs, int first, int count, int table,
                                int handler, int budget, int *stop, int *status) {
    clua_context *ctx = clua_getcontext(L);
    for (int i = first; i < count; i++) {
        unsigned long generation = ctx->generation;
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
        if (!kept || ctx->generation != generation) {
            *stop = CLUA_RULE_RETURNED;
            return i;
        }
        lua_settop(L, table);
    }
    *stop = CLUA_RULES_KEPT;
    return count;
}

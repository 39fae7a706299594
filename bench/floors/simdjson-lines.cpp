// A floor for toastscript's reading thread with SIMD: simdjson (Debian's libsimdjson-dev)
// reads JSON Lines from stdin with `parse_many`, checking every byte of every line (UTF-8
// included) and building its tape, and counts each line's members. Nothing is picked out or
// kept: this is what checking the input costs with the fastest JSON parser packaged for Debian.
//
//   c++ -O2 -std=c++17 -o simdjson-lines simdjson-lines.cpp -lsimdjson
//   ./simdjson-lines < events.jsonl
#include <simdjson.h>

#include <cstdio>
#include <string>
#include <unistd.h>

int main() {
    std::string input;
    char block[1 << 16];
    ssize_t got;
    while ((got = read(0, block, sizeof block)) > 0) input.append(block, static_cast<size_t>(got));
    simdjson::padded_string padded(input);
    simdjson::dom::parser parser;
    simdjson::dom::document_stream lines;
    if (parser.parse_many(padded).get(lines)) {
        std::fprintf(stderr, "simdjson-lines: %s\n", "cannot start parsing");
        return 1;
    }
    long objects = 0, rejected = 0, members = 0;
    for (auto line : lines) {
        simdjson::dom::object object;
        if (line.get_object().get(object)) {
            rejected++;
            continue;
        }
        objects++;
        members += static_cast<long>(object.size());
    }
    std::printf("objects %ld, rejected %ld, members %ld\n", objects, rejected, members);
    return 0;
}

// Structure-aware mutation for the JSON fuzz targets (schedule, plan, simulated-device and mapping
// files). Byte-level mutation of a JSON file mostly breaks its syntax, so only a few percent of
// inputs reach the readers; this parses the input, edits the document (a value's type or size, a
// key renamed to another key of the file, an element dropped, repeated or moved, a subtree copied
// elsewhere) and writes it back, so nearly every input is valid JSON that exercises the readers'
// checks. Inputs that do not parse get the byte-level mutator.
//
// A target opts in with OPSCHED_FUZZ_JSON_MUTATOR (libFuzzer calls LLVMFuzzerCustomMutator; the
// replay driver of gcc builds calls it for every other mutation and provides LLVMFuzzerMutate).
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t maxSize);

namespace opsched::fuzz {

class JsonMutator {
public:
    explicit JsonMutator(unsigned seed)
        : rng_(seed)
    {
    }

    // Mutates doc in place: 1 to 3 edits at random nodes.
    void mutate(nlohmann::json& doc)
    {
        const int edits = 1 + static_cast<int>(rng_() % 3);
        for (int e = 0; e < edits; ++e) {
            nodes_.clear();
            keys_.clear();
            collect(doc);
            edit(*nodes_[pick(nodes_.size())]);
        }
    }

private:
    std::size_t pick(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(rng_() % n); }

    void collect(nlohmann::json& j)
    {
        nodes_.push_back(&j);
        if (j.is_object())
            for (auto it = j.begin(); it != j.end(); ++it) {
                keys_.push_back(it.key());
                collect(it.value());
            }
        else if (j.is_array())
            for (auto& v : j)
                collect(v);
    }

    nlohmann::json interestingNumber()
    {
        static const double kValues[] = { 0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 1e-300, 1e300, 1e38, -1e38, 4294967296.0,
            9007199254740993.0, std::numeric_limits<double>::min() };
        switch (rng_() % 4) {
        case 0:
            return static_cast<std::int64_t>(rng_() % 5) - 1;
        case 1:
            return std::numeric_limits<std::int64_t>::max() - static_cast<std::int64_t>(rng_() % 2);
        case 2:
            return std::numeric_limits<std::int64_t>::min();
        default:
            return kValues[pick(std::size(kValues))];
        }
    }

    nlohmann::json otherValue()
    {
        switch (rng_() % 7) {
        case 0:
            return nullptr;
        case 1:
            return rng_() % 2 == 0;
        case 2:
            return interestingNumber();
        case 3:
            return keys_.empty() ? std::string() : keys_[pick(keys_.size())];
        case 4:
            return nlohmann::json::array();
        case 5:
            return nlohmann::json::object();
        default:
            return *nodes_[pick(nodes_.size())]; // another subtree of the same file
        }
    }

    void edit(nlohmann::json& j)
    {
        if (j.is_number() && rng_() % 2 == 0) {
            const double v = j.get<double>();
            // Off by one near the value (integers only where that cannot overflow), negated or scaled.
            const bool small = std::abs(v) < 1e15;
            if (small && rng_() % 2 == 0)
                j = static_cast<std::int64_t>(v) + static_cast<std::int64_t>(rng_() % 3) - 1;
            else
                j = v * (rng_() % 2 == 0 ? -1.0 : 1e6);
            return;
        }
        if (j.is_array() && !j.empty()) {
            const std::size_t i = pick(j.size());
            switch (rng_() % 4) {
            case 0:
                j.erase(i);
                return;
            case 1: {
                nlohmann::json copy = j[i]; // a copy: inserting grows the array under a reference
                j.insert(j.begin() + static_cast<std::ptrdiff_t>(pick(j.size() + 1)), std::move(copy));
                return;
            }
            case 2:
                std::swap(j[i], j[pick(j.size())]);
                return;
            default:
                j[i] = otherValue();
                return;
            }
        }
        if (j.is_object() && !j.empty()) {
            auto it = std::next(j.begin(), static_cast<std::ptrdiff_t>(pick(j.size())));
            const std::string key = it.key();
            switch (rng_() % 3) {
            case 0:
                j.erase(key);
                return;
            case 1: { // rename to another key of the file: the reader sees a known key in the wrong place
                nlohmann::json v = std::move(it.value());
                j.erase(key);
                j[keys_[pick(keys_.size())]] = std::move(v);
                return;
            }
            default:
                it.value() = otherValue();
                return;
            }
        }
        if (j.is_string() && rng_() % 3 == 0) {
            auto s = j.get<std::string>();
            j = rng_() % 2 == 0 ? s + s : s.substr(0, pick(s.size() + 1));
            return;
        }
        j = otherValue();
    }

    std::mt19937 rng_;
    std::vector<nlohmann::json*> nodes_;
    std::vector<std::string> keys_;
};

// The body of LLVMFuzzerCustomMutator for JSON targets.
inline std::size_t mutateJson(std::uint8_t* data, std::size_t size, std::size_t maxSize, unsigned seed)
{
    nlohmann::json doc = nlohmann::json::parse(data, data + size, nullptr, false);
    if (doc.is_discarded() || seed % 8 == 0) // keep some byte-level mutation for the parser itself
        return LLVMFuzzerMutate(data, size, maxSize);
    JsonMutator(seed).mutate(doc);
    // A string cut inside a UTF-8 sequence is written with U+FFFD, not thrown about.
    const std::string out = doc.dump(seed % 2 == 0 ? -1 : 2, ' ', false, nlohmann::json::error_handler_t::replace);
    if (out.size() > maxSize)
        return LLVMFuzzerMutate(data, size, maxSize);
    std::memcpy(data, out.data(), out.size());
    return out.size();
}

} // namespace opsched::fuzz

#define OPSCHED_FUZZ_JSON_MUTATOR                                                                                      \
    extern "C" std::size_t LLVMFuzzerCustomMutator(                                                                    \
        std::uint8_t* data, std::size_t size, std::size_t maxSize, unsigned seed)                                      \
    {                                                                                                                  \
        return opsched::fuzz::mutateJson(data, size, maxSize, seed);                                                   \
    }

#include "graph/name_scopes.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <unordered_map>

namespace opsched {
namespace {

// The scope trie as the names spell it, before single-op scopes dissolve and chains merge.
struct RawScope {
    std::string path;
    std::string part;
    char separator = '.';
    int parent = -1;
    std::vector<int> children;
    std::vector<std::uint32_t> ownOps;
    std::size_t count = 0; // ops under it
};

std::vector<RawScope> rawScopes(const std::vector<std::string>& names)
{
    std::vector<RawScope> raw(1);
    std::unordered_map<std::string, int> byPath;
    for (std::uint32_t op = 0; op < names.size(); ++op) {
        const std::string& name = names[op];
        const char sep = name.find('/') != std::string::npos ? '/' : '.';
        // The non-empty parts as [begin, end) ranges; every part but the last names a scope.
        std::vector<std::pair<std::size_t, std::size_t>> parts;
        for (std::size_t begin = 0; begin <= name.size();) {
            std::size_t end = name.find(sep, begin);
            if (end == std::string::npos)
                end = name.size();
            if (end > begin)
                parts.emplace_back(begin, end);
            begin = end + 1;
        }
        int current = 0;
        ++raw[0].count;
        for (std::size_t k = 0; k + 1 < parts.size(); ++k) {
            std::string path = name.substr(0, parts[k].second);
            auto [it, inserted] = byPath.try_emplace(path, static_cast<int>(raw.size()));
            if (inserted) {
                RawScope scope;
                scope.path = std::move(path);
                scope.part = name.substr(parts[k].first, parts[k].second - parts[k].first);
                scope.separator = sep;
                scope.parent = current;
                raw[static_cast<std::size_t>(current)].children.push_back(it->second);
                raw.push_back(std::move(scope));
            }
            current = it->second;
            ++raw[static_cast<std::size_t>(current)].count;
        }
        raw[static_cast<std::size_t>(current)].ownOps.push_back(op);
    }
    // An op named like a scope ("l3.attn.q" beside "l3.attn.q.heads") heads that scope: it moves in.
    for (std::size_t s = 0; s < raw.size(); ++s) {
        std::vector<std::uint32_t> stay, moving;
        for (std::uint32_t op : raw[s].ownOps) {
            const auto it = byPath.find(names[op]);
            (it != byPath.end() && static_cast<std::size_t>(it->second) != s ? moving : stay).push_back(op);
        }
        raw[s].ownOps = std::move(stay);
        for (std::uint32_t op : moving) {
            RawScope& named = raw[static_cast<std::size_t>(byPath.at(names[op]))];
            named.ownOps.push_back(op);
            ++named.count;
        }
    }
    return raw;
}

void collectOps(const std::vector<RawScope>& raw, int r, std::vector<std::uint32_t>& out)
{
    const RawScope& scope = raw[static_cast<std::size_t>(r)];
    out.insert(out.end(), scope.ownOps.begin(), scope.ownOps.end());
    for (int c : scope.children)
        collectOps(raw, c, out);
}

// Turns raw scope `r` into scopes under `parent`: dissolved into the parent when it holds fewer
// than two ops, merged with its only sub-scope when that holds all its ops.
void place(const std::vector<RawScope>& raw, int r, int parent, std::vector<NameScope>& out)
{
    if (raw[static_cast<std::size_t>(r)].count < 2) {
        collectOps(raw, r, out[static_cast<std::size_t>(parent)].ownOps);
        return;
    }
    int current = r;
    std::string name = raw[static_cast<std::size_t>(r)].part;
    for (;;) {
        const RawScope& s = raw[static_cast<std::size_t>(current)];
        if (!s.ownOps.empty() || s.children.size() != 1)
            break;
        const RawScope& only = raw[static_cast<std::size_t>(s.children.front())];
        if (only.count != s.count)
            break;
        name += only.separator + only.part;
        current = s.children.front();
    }
    const RawScope& s = raw[static_cast<std::size_t>(current)];
    NameScope scope;
    scope.path = s.path;
    scope.name = std::move(name);
    scope.parent = parent;
    scope.depth = out[static_cast<std::size_t>(parent)].depth + 1;
    scope.ownOps = s.ownOps;
    const int index = static_cast<int>(out.size());
    out.push_back(std::move(scope));
    out[static_cast<std::size_t>(parent)].children.push_back(index);
    for (int c : s.children)
        place(raw, c, index, out);
}

std::string signatureOf(const NameScope& scope, const std::vector<std::string>& names, const std::vector<int>& kinds,
    const Dag& dag, std::vector<int>& local)
{
    std::string sig;
    for (std::size_t k = 0; k < scope.ops.size(); ++k) {
        const std::uint32_t op = scope.ops[k];
        local[op] = static_cast<int>(k);
        const std::string& name = names[op];
        sig += std::to_string(kinds[op]);
        sig += '|';
        sig += name.compare(0, scope.path.size(), scope.path) == 0 ? name.substr(scope.path.size()) : name;
        sig += ';';
    }
    sig += '#';
    for (std::uint32_t op : scope.ops)
        for (std::uint32_t to : dag.successors[op])
            if (local[to] >= 0)
                sig += std::to_string(local[op]) + '>' + std::to_string(local[to]) + ',';
    for (std::uint32_t op : scope.ops)
        local[op] = -1;
    return sig;
}

} // namespace

bool NameScopes::contains(int ancestor, int scope) const
{
    for (int s = scope; s >= 0; s = scopes[static_cast<std::size_t>(s)].parent)
        if (s == ancestor)
            return true;
    return false;
}

std::vector<int> NameScopes::pathTo(int scope) const
{
    std::vector<int> path;
    for (int s = scope; s > 0; s = scopes[static_cast<std::size_t>(s)].parent)
        path.push_back(s);
    std::reverse(path.begin(), path.end());
    return path;
}

NameScopes buildNameScopes(const std::vector<std::string>& names, const std::vector<int>& kinds, const Dag& dag)
{
    if (names.size() != dag.size() || kinds.size() != dag.size())
        throw std::invalid_argument("name scopes: one name and one kind per op are needed");
    const auto order = topologicalOrder(dag);
    if (!order)
        throw std::invalid_argument("name scopes: the graph has a cycle");

    NameScopes result;
    result.position.assign(dag.size(), 0);
    for (std::uint32_t k = 0; k < order->size(); ++k)
        result.position[(*order)[k]] = k;

    const std::vector<RawScope> raw = rawScopes(names);
    result.scopes.emplace_back();
    result.scopes.front().ownOps = raw.front().ownOps;
    for (int c : raw.front().children)
        place(raw, c, 0, result.scopes);

    result.scopeOf.assign(dag.size(), 0);
    for (std::size_t s = 0; s < result.scopes.size(); ++s)
        for (std::uint32_t op : result.scopes[s].ownOps)
            result.scopeOf[op] = static_cast<int>(s);
    for (std::uint32_t op = 0; op < dag.size(); ++op)
        for (int s = result.scopeOf[op]; s >= 0; s = result.scopes[static_cast<std::size_t>(s)].parent)
            result.scopes[static_cast<std::size_t>(s)].ops.push_back(op);

    const auto byPosition = [&](std::uint32_t a, std::uint32_t b) { return result.position[a] < result.position[b]; };
    for (NameScope& scope : result.scopes) {
        std::sort(scope.ops.begin(), scope.ops.end(), byPosition);
        std::sort(scope.ownOps.begin(), scope.ownOps.end(), byPosition);
    }
    for (NameScope& scope : result.scopes)
        std::sort(scope.children.begin(), scope.children.end(), [&](int a, int b) {
            return byPosition(result.scopes[static_cast<std::size_t>(a)].ops.front(),
                result.scopes[static_cast<std::size_t>(b)].ops.front());
        });
    std::vector<int> local(dag.size(), -1);
    for (std::size_t s = 1; s < result.scopes.size(); ++s)
        result.scopes[s].signature = signatureOf(result.scopes[s], names, kinds, dag, local);
    return result;
}

namespace {

// One pass of collapseScopes with the current open scopes and unfoldable scopes.
struct ViewBuilder {
    const NameScopes& scopes;
    const std::vector<bool>& open;
    const std::vector<bool>& noFold;
    bool foldRepeats;
    ScopeView view;

    void addNode(ScopeNode node)
    {
        const auto index = static_cast<std::uint32_t>(view.nodes.size());
        for (std::uint32_t op : node.ops)
            view.nodeOf[op] = index;
        view.nodes.push_back(std::move(node));
    }

    bool foldable(int a, int b) const
    {
        const auto ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b);
        return !open[ub] && !noFold[ub] && scopes.scopes[ua].signature == scopes.scopes[ub].signature;
    }

    void visit(int s)
    {
        const NameScope& scope = scopes.scopes[static_cast<std::size_t>(s)];
        // Sub-scopes and own ops in topological order of their first op: -1 - op marks an op.
        std::vector<std::pair<std::uint32_t, int>> items;
        for (int c : scope.children)
            items.emplace_back(scopes.position[scopes.scopes[static_cast<std::size_t>(c)].ops.front()], c);
        for (std::uint32_t op : scope.ownOps)
            items.emplace_back(scopes.position[op], -1 - static_cast<int>(op));
        std::sort(items.begin(), items.end());
        for (std::size_t i = 0; i < items.size(); ++i) {
            const int item = items[i].second;
            if (item < 0) {
                const auto op = static_cast<std::uint32_t>(-1 - item);
                addNode({ ScopeNode::Kind::Op, op, {}, { op } });
                continue;
            }
            if (open[static_cast<std::size_t>(item)]) {
                visit(item);
                continue;
            }
            ScopeNode node { ScopeNode::Kind::Scope, 0, { item }, scopes.scopes[static_cast<std::size_t>(item)].ops };
            if (foldRepeats && !noFold[static_cast<std::size_t>(item)])
                while (i + 1 < items.size() && items[i + 1].second >= 0 && foldable(item, items[i + 1].second)) {
                    const int next = items[++i].second;
                    node.scopes.push_back(next);
                    const auto& ops = scopes.scopes[static_cast<std::size_t>(next)].ops;
                    node.ops.insert(node.ops.end(), ops.begin(), ops.end());
                }
            if (node.scopes.size() > 1)
                node.kind = ScopeNode::Kind::Stack;
            addNode(std::move(node));
        }
    }
};

} // namespace

ScopeView collapseScopes(const NameScopes& scopes, const Dag& dag, const std::vector<bool>& expanded, bool foldRepeats)
{
    std::vector<bool> open(scopes.size(), false);
    for (std::size_t s = 0; s < scopes.size(); ++s)
        open[s] = s == 0 || (s < expanded.size() && expanded[s]);
    std::vector<bool> noFold(scopes.size(), false);
    std::vector<int> opened;
    for (;;) {
        ViewBuilder builder { scopes, open, noFold, foldRepeats, {} };
        builder.view.nodeOf.assign(dag.size(), std::numeric_limits<std::uint32_t>::max());
        if (!scopes.scopes.empty())
            builder.visit(0);
        ScopeView view = std::move(builder.view);
        std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
        for (std::uint32_t op = 0; op < dag.size(); ++op)
            for (std::uint32_t to : dag.successors[op])
                if (view.nodeOf[op] != view.nodeOf[to])
                    edges.emplace_back(view.nodeOf[op], view.nodeOf[to]);
        view.dag = Dag::fromEdges(view.nodes.size(), edges);
        const std::vector<std::uint32_t> cycle = findCycle(view.dag);
        if (cycle.empty()) {
            view.opened = std::move(opened);
            return view;
        }
        // A stack on the cycle unfolds first (its members may be fine apart); else the scopes on it open.
        bool changed = false;
        for (std::uint32_t v : cycle)
            if (view.nodes[v].kind == ScopeNode::Kind::Stack)
                for (int s : view.nodes[v].scopes) {
                    noFold[static_cast<std::size_t>(s)] = true;
                    changed = true;
                }
        if (!changed)
            for (std::uint32_t v : cycle)
                if (view.nodes[v].kind == ScopeNode::Kind::Scope) {
                    const int s = view.nodes[v].scopes.front();
                    open[static_cast<std::size_t>(s)] = true;
                    opened.push_back(s);
                    changed = true;
                }
        if (!changed)
            throw std::invalid_argument("scope view: the op graph has a cycle");
    }
}

std::vector<bool> defaultExpansion(const NameScopes& scopes, std::size_t maxNodes)
{
    std::vector<bool> expanded(scopes.size(), false);
    if (scopes.scopes.empty())
        return expanded;
    expanded[0] = true;
    const NameScope& root = scopes.scopes.front();
    std::size_t shown = root.ownOps.size() + root.children.size();
    std::vector<int> level = root.children;
    while (!level.empty()) {
        std::size_t next = shown;
        std::vector<int> below;
        for (int s : level) {
            const NameScope& scope = scopes.scopes[static_cast<std::size_t>(s)];
            next += scope.ownOps.size() + scope.children.size() - 1;
            below.insert(below.end(), scope.children.begin(), scope.children.end());
        }
        if (next > maxNodes)
            break;
        for (int s : level)
            expanded[static_cast<std::size_t>(s)] = true;
        shown = next;
        level = std::move(below);
    }
    return expanded;
}

std::vector<bool> allExpanded(const NameScopes& scopes)
{
    return std::vector<bool>(scopes.size(), true);
}

std::string stackRangeLabel(const NameScopes& scopes, const ScopeNode& stack)
{
    if (stack.scopes.empty())
        return {};
    const std::string& first = scopes.scopes[static_cast<std::size_t>(stack.scopes.front())].name;
    if (stack.scopes.size() == 1)
        return first;
    const std::string& last = scopes.scopes[static_cast<std::size_t>(stack.scopes.back())].name;
    std::size_t common = 0;
    while (common < first.size() && common < last.size() && first[common] == last[common])
        ++common;
    // Never inside a number: "l1" and "l11" share "l", not "l1".
    auto digit = [](char c) { return c >= '0' && c <= '9'; };
    while (common > 0 && digit(first[common - 1])
        && ((common < first.size() && digit(first[common])) || (common < last.size() && digit(last[common]))))
        --common;
    return first + "\u2013" + last.substr(common);
}

} // namespace opsched

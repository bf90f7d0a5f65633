#!lua name=ringwatch
--
-- ringwatch's Redis Functions library: the only writers of the schema in
-- ringwatch-redis(7).  Loaded by ringwatch at startup (FUNCTION LOAD
-- REPLACE); compiled into the binary from this file (src/redis_functions.c).
--
--   FCALL rw_put 4 T:rev T:R:objects T:R:log T:R:compacted
--         key json expected history
--   FCALL rw_delete 4 T:rev T:R:objects T:R:log T:R:compacted
--         key expected history
--   FCALL_RO rw_rev 1 T:rev
--
-- T is the hash tag ("{rw}" or "{rw:R}"), R the resource's canonical name.
-- A write validates everything before it writes anything (a Redis function
-- that fails half-way keeps its earlier writes), then: INCR T:rev, HSET the
-- object ("<modrev> <json>"), XADD T:R:log "<rev>-0" type/key/value, XTRIM
-- T:R:log MAXLEN history (exact) and, when that removed entries, raise
-- T:R:compacted to the revision just below the oldest entry kept.  It
-- returns the new revision.  Errors are error replies whose first word is
-- stable: CONFLICT <modrev>, EXISTS <modrev>, NOTFOUND <key>, INVALID <why>
-- (a bare word would come back as "ERR NOTFOUND").
-- Everything here is deterministic: no time, no randomness.

-- Error reply with a stable first word.
local function fail(msg)
    return redis.error_reply(msg)
end

-- A decimal revision as text (tostring would print 1e+14 past 14 digits).
local function revtext(n)
    return string.format('%d', n)
end

-- Non-negative decimal integer (at most 15 digits: exact in a double), or nil.
local function decimal(s)
    if type(s) ~= 'string' or not s:find('^%d+$') or #s > 15 then
        return nil
    end
    return tonumber(s)
end

-- The four keys: T:rev, T:R:objects, T:R:log, T:R:compacted, one hash tag
-- (one Redis Cluster slot) and one resource.  Returns nil or the reason.
local function check_keys(keys)
    if #keys ~= 4 then
        return 'expected 4 keys: T:rev T:R:objects T:R:log T:R:compacted'
    end
    local tag = keys[1]:match('^({[^{}]+}):rev$')
    if not tag then
        return 'first key must be {TAG}:rev'
    end
    local prefix = tag .. ':'
    local resource = keys[2]:sub(#prefix + 1):match('^(.+):objects$')
    if keys[2]:sub(1, #prefix) ~= prefix or not resource then
        return 'second key must be ' .. tag .. ':R:objects'
    end
    if keys[3] ~= prefix .. resource .. ':log' or
       keys[4] ~= prefix .. resource .. ':compacted' then
        return 'keys 3 and 4 must be ' .. prefix .. resource ..
               ':log and ' .. prefix .. resource .. ':compacted'
    end
    return nil
end

-- Strict UTF-8 (no overlong forms, no surrogates), as ringwatch's decoder.
local function utf8_valid(s)
    local i, n = 1, #s
    while i <= n do
        local _, e = s:find('^[\1-\127]+', i)
        if e then
            i = e + 1
        else
            local c, len, lo, hi = s:byte(i), 0, 0x80, 0xBF
            if c >= 0xC2 and c <= 0xDF then len = 2
            elseif c == 0xE0 then len, lo = 3, 0xA0
            elseif c == 0xED then len, hi = 3, 0x9F
            elseif c >= 0xE1 and c <= 0xEF then len = 3
            elseif c == 0xF0 then len, lo = 4, 0x90
            elseif c == 0xF4 then len, hi = 4, 0x8F
            elseif c >= 0xF1 and c <= 0xF3 then len = 4
            else return false end
            for k = 1, len - 1 do
                local b = s:byte(i + k)
                if not b or b < lo or b > hi then
                    return false
                end
                lo, hi = 0x80, 0xBF
            end
            i = i + len
        end
    end
    return true
end

------------------------------------------------------------------------
-- A scanner over JSON text already accepted by cjson: it finds members'
-- byte spans so that metadata.resourceVersion can be cut out without
-- re-encoding (cjson would reorder members, turn [] into {} and round
-- large integers).

local function skip_ws(s, i)
    local _, e = s:find('^[ \t\r\n]*', i)
    return e + 1
end

local function skip_string(s, i)
    local j = i + 1
    while true do
        local k = s:find('["\\]', j)
        if s:byte(k) == 34 then
            return k + 1
        end
        j = k + 2
    end
end

local skip_value

-- The members of the object at i: a list of {key, first, last} (the
-- member's bytes s:sub(first, last)) and the index after the object.
local function object_members(s, i)
    local members = {}
    i = skip_ws(s, i + 1)
    if s:byte(i) == 125 then
        return members, i + 1
    end
    while true do
        local first = i
        local after_key = skip_string(s, i)
        local key = s:sub(i + 1, after_key - 2)
        if key:find('\\', 1, true) then
            key = cjson.decode(s:sub(i, after_key - 1))
        end
        local value = skip_ws(s, skip_ws(s, after_key) + 1)
        i = skip_value(s, value)
        members[#members + 1] = {key = key, first = first, value = value,
                                 last = i - 1}
        i = skip_ws(s, i)
        if s:byte(i) == 125 then
            return members, i + 1
        end
        i = skip_ws(s, i + 1)
    end
end

local function skip_array(s, i)
    i = skip_ws(s, i + 1)
    if s:byte(i) == 93 then
        return i + 1
    end
    while true do
        i = skip_ws(s, skip_value(s, i))
        if s:byte(i) == 93 then
            return i + 1
        end
        i = skip_ws(s, i + 1)
    end
end

skip_value = function(s, i)
    local c = s:byte(i)
    if c == 34 then
        return skip_string(s, i)
    elseif c == 123 then
        local _, after = object_members(s, i)
        return after
    elseif c == 91 then
        return skip_array(s, i)
    end
    local _, e = s:find('^[^,}%] \t\r\n]+', i)
    return e + 1
end

-- The object s without any metadata.resourceVersion member (s itself when
-- it has none), or nil when a metadata member is not an object.
local function strip_resource_version(s)
    local top = object_members(s, skip_ws(s, 1))
    for m = #top, 1, -1 do
        local member = top[m]
        local vstart = member.value
        if member.key == 'metadata' and s:byte(vstart) ~= 123 then
            return nil
        elseif member.key == 'metadata' then
            local inner = object_members(s, vstart)
            local kept, stripped = {}, false
            for _, field in ipairs(inner) do
                if field.key == 'resourceVersion' then
                    stripped = true
                else
                    kept[#kept + 1] = s:sub(field.first, field.last)
                end
            end
            if stripped then
                s = s:sub(1, vstart - 1) .. '{' .. table.concat(kept, ',') ..
                    '}' .. s:sub(member.last + 1)
            end
        end
    end
    return s
end

------------------------------------------------------------------------
-- Validation of a value against its key.

-- The value to store, or nil and the reason.  The key's last segment must
-- be metadata.name; a non-empty metadata.namespace must be the segment
-- before it (the function cannot know whether R is namespaced: ringwatch
-- checks the full key layout when it reads the value).
local function check_value(key, json)
    if not utf8_valid(json) then
        return nil, 'value is not valid UTF-8'
    end
    local ok, obj = pcall(cjson.decode, json)
    if not ok then
        return nil, 'value is not JSON'
    end
    if type(obj) ~= 'table' or json:byte(skip_ws(json, 1)) ~= 123 then
        return nil, 'value is not a JSON object'
    end
    local meta = obj.metadata
    local stripped = strip_resource_version(json)
    if type(meta) ~= 'table' or not stripped then
        return nil, 'metadata is not an object'
    end
    local ns, name = key:match('/([^/]*)/([^/]+)$')
    if not name then
        name = key:match('^/([^/]+)$')
    end
    if type(meta.name) ~= 'string' or meta.name ~= name then
        return nil, 'metadata.name does not match the key ' .. key
    end
    if meta.namespace ~= nil and meta.namespace ~= cjson.null then
        if type(meta.namespace) ~= 'string' or
           (meta.namespace ~= '' and meta.namespace ~= ns) then
            return nil, 'metadata.namespace does not match the key ' .. key
        end
    end
    return stripped
end

-- The object's key: "/...", no empty last segment, valid UTF-8.
local function check_key(key)
    if type(key) ~= 'string' or not key:find('^/.*[^/]$') or
       key:find('%z') or not utf8_valid(key) then
        return 'key must be /registry/PREFIX/[NS/]NAME'
    end
    return nil
end

-- The next revision, or nil and the reason: T:rev must not be behind the
-- log (a restore or a hand edit that lost T:rev but kept the stream).
local function next_revision(keys)
    local current = tonumber(redis.call('GET', keys[1]) or '0')
    local last = redis.call('XREVRANGE', keys[3], '+', '-', 'COUNT', 1)[1]
    local compacted = tonumber(redis.call('GET', keys[4]) or '0')
    if last then
        local logrev = tonumber(last[1]:match('^(%d+)-'))
        if logrev > current then
            return nil, keys[1] .. ' (' .. revtext(current) ..
                        ') is behind ' .. keys[3] .. ' (' .. last[1] .. ')'
        end
    end
    if compacted > current then
        return nil, keys[1] .. ' is behind ' .. keys[4]
    end
    return current + 1
end

-- The keys and the arguments (usage names them: the first is the key, the
-- last the history); returns the history length, the current value and its
-- mod revision (nil when absent), or nil and the reason.
local function prepare(keys, args, usage)
    local _, nargs = usage:gsub('%S+', '')
    if #args ~= nargs then
        return nil, 'expected ' .. nargs .. ' arguments: ' .. usage
    end
    local key, history = args[1], args[nargs]
    local why = check_keys(keys) or check_key(key)
    if why then
        return nil, why
    end
    local n = decimal(history)
    if not n or n < 1 then
        return nil, 'history must be a positive integer'
    end
    local current = redis.call('HGET', keys[2], key)
    if not current then
        return n
    end
    local modrev, value = current:match('^(%d+) (.*)$')
    if not modrev then
        return nil, keys[2] .. ' field ' .. key .. ' is not "<modrev> <json>"'
    end
    return n, value, modrev
end

-- Writes the checked change: the next revision, the hash field (stored:
-- the new JSON; nil: removed), the log entry (value: its JSON), the
-- trimming and the compaction revision.  Returns the revision, or an
-- INVALID error when the counter is behind the log (nothing written).
local function commit(keys, kind, key, stored, value, history)
    local rev, behind = next_revision(keys)
    if not rev then
        return fail('INVALID ' .. behind)
    end
    if stored then
        redis.call('HSET', keys[2], key, revtext(rev) .. ' ' .. stored)
    else
        redis.call('HDEL', keys[2], key)
    end
    redis.call('INCR', keys[1])
    redis.call('XADD', keys[3], revtext(rev) .. '-0', 'type', kind, 'key', key,
               'value', value)
    if redis.call('XTRIM', keys[3], 'MAXLEN', history) > 0 then
        local oldest = redis.call('XRANGE', keys[3], '-', '+', 'COUNT', 1)[1]
        local below = tonumber(oldest[1]:match('^(%d+)-')) - 1
        if below > tonumber(redis.call('GET', keys[4]) or '0') then
            redis.call('SET', keys[4], revtext(below))
        end
    end
    return rev
end

-- The error of a write whose expected mod revision does not hold, or nil;
-- "0" (create) only when create.
local function check_expected(expected, modrev, key, create)
    local want = decimal(expected)
    if expected == '' then
        return nil
    elseif not want or (want == 0 and not create) then
        return 'INVALID expected must be ""' .. (create and ', 0' or '') ..
               ' or a revision'
    elseif want == 0 then
        return modrev and 'EXISTS ' .. modrev or nil
    elseif not modrev then
        return 'NOTFOUND ' .. key
    elseif tonumber(modrev) ~= want then
        return 'CONFLICT ' .. modrev
    end
    return nil
end

local function rw_put(keys, args)
    local n, current, modrev = prepare(keys, args, 'key json expected history')
    local why = not n and 'INVALID ' .. current or
                check_expected(args[3], modrev, args[1], true)
    if why then
        return fail(why)
    end
    local value, invalid = check_value(args[1], args[2])
    if not value then
        return fail('INVALID ' .. invalid)
    end
    return commit(keys, 'PUT', args[1], value, value, n)
end

local function rw_delete(keys, args)
    local n, current, modrev = prepare(keys, args, 'key expected history')
    local why = not n and 'INVALID ' .. current or
                check_expected(args[2], modrev, args[1], false)
    if not why and not modrev then
        why = 'NOTFOUND ' .. args[1]
    end
    if why then
        return fail(why)
    end
    return commit(keys, 'DELETE', args[1], nil, current, n)
end

local function rw_rev(keys, args)
    if #keys ~= 1 or not keys[1]:find('^{[^{}]+}:rev$') then
        return fail('INVALID expected one key {TAG}:rev')
    end
    return tonumber(redis.call('GET', keys[1]) or '0')
end

redis.register_function('rw_put', rw_put)
redis.register_function('rw_delete', rw_delete)
redis.register_function{function_name = 'rw_rev', callback = rw_rev,
                        flags = {'no-writes'}}

-- som.lua - the Lua twin of programs/awfy/som/*.bc: the shared som classes.

local som = {}

local Random = {}
Random.__index = Random
som.Random = Random

function Random.new()
    return setmetatable({ seed = 74755 }, Random)
end

function Random:next()
    self.seed = ((self.seed * 1309) + 13849) & 65535
    return self.seed
end

return som

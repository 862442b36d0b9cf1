# exit: 1
# The Ruby HBase users fill and inspect tables with (issue 27, point 1): loops, blocks,
# variables, interpolation, format, arithmetic, Bytes and table handles. Expected lines
# are what HBase 2.x's JRuby shell prints for the same statements.
clock 1700000000000
create 't', 'cf'

# The reference guide's loop: one command, one put per iteration.
for i in 1..5 do put 't', "row#{i}", 'cf:c', "value#{i}" end
(1..3).each { |i| put 't', "k%03d" % i, 'cf:pad', 'x' * i }
3.times do |i|
  put 't', 'counter', "cf:n#{i}", i * 10 + 1
end
scan 't'

# Local variables, arithmetic, strings.
n = 10
total = 0
n.times { |i| total += i }
puts "total=#{total}", n / 3, n % 3, -n / 3, 2 ** 20, n.to_f / 4
name = 'user' + '_' + 42.to_s.rjust(6, '0')
puts name, name.length, name.upcase, name[0, 4], "%-8s|%5.1f|%x" % [name[0, 4], 3.14159, 255]
puts [1, 2, 3].map { |v| v * v }.inspect, (1..10).select { |v| v.even? }.sum
if total > 40 then puts 'big' else puts 'small' end
puts 'odd' unless n.even?
i = 0
while i < 3
  i += 1
end
puts i

# Bytes and binary rows.
puts Bytes.toStringBinary(Bytes.toBytes(1000)), Bytes.toLong(Bytes.toBytes(1000))
key = String.from_java_bytes(Bytes.toBytes(7))
put 't', key, 'cf:c', 'binary row'
get 't', key

# Table handles.
t = get_table 't'
t.put 'row9', 'cf:c', 'via handle'
t.get 'row9'
puts t.count
t.delete 'row9', 'cf:c'
t.deleteall 'counter'
puts t.count, t.name, t.inspect
t.scan({COLUMNS => 'cf:pad', LIMIT => 2})
puts list.inspect, exists('t')

# Errors: Ruby's classes and messages, then the next statement runs.
puts undefined_name
nil.length
puts 1 + 'a'
puts 5 / 0
put 't', 'r', 'cf:c', Bytes.toBytes(1)
def helper; end
puts 'after the errors'

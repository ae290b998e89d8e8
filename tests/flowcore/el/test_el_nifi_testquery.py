# ruff: noqa: E501  (a table of NiFi expressions, kept whole so they read as in NiFi)
"""NiFi's own TestQuery assertions, ported: each group is a NiFi test method's attributes and
the expressions it checks with the values NiFi expects.

Generated from nifi-commons/nifi-expression-language TestQuery.java (Apache License 2.0),
keeping the assertions whose expected value is a literal and whose result does not depend
on the clock, the host or randomness (those are covered by ``test_el_nifi_functions``).
Date assertions run with New York as the local zone.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from flowcore.el import evaluate

GROUPS: list[tuple[str, dict[str, str], list[tuple[str, str]]]] = [
    (
        "testWithTicksOutside",
        {"attr": "My Value"},
        [
            ("'${attr}'", "'My Value'"),
            ("'${attr}", "'My Value"),
        ],
    ),
    (
        "testEmbeddedExpressionsAndQuotes",
        {"x": "abc", "a": "abc"},
        [
            ("${x:equals(${a})}", "true"),
            ("${x:equals('${a}')}", "true"),
            ('${x:equals("${a}")}', "true"),
        ],
    ),
    (
        "testJoin",
        {"a.a": "a", "a.b": "b", "a.c": "c"},
        [
            ("${allAttributes( 'a.a', 'a.b', 'a.c' ):join(', ')}", "a, b, c"),
            ("${x:join(', ')}", ""),
            ("${a.a:join(', ')}", "a"),
            ("${allAttributes( 'x', 'y' ):join(',')}", ","),
        ],
    ),
    (
        "testIsEmpty",
        {"a": "a", "b": "", "c": "        \n"},
        [
            ("${a:isEmpty()}", "false"),
            ("${b:isEmpty()}", "true"),
            ("${c:isEmpty()}", "true"),
            ("${d:isEmpty()}", "true"),
        ],
    ),
    (
        "testReplaceEmpty",
        {"a": "a", "b": "", "c": "        \n"},
        [
            ("${a:replaceEmpty('c')}", "a"),
            ("${b:replaceEmpty('c')}", "c"),
            ("${c:replaceEmpty('c')}", "c"),
            ("${d:replaceEmpty('c')}", "c"),
        ],
    ),
    (
        "testCount",
        {"a": "a", "b": "abc", "c": "        \n", "n1": "111", "n2": "222", "n3": "333333"},
        [
            ("${allMatchingAttributes( '.*' ):count()}", "6"),
            ("${allMatchingAttributes( '.*' ):length():gt(2):count()}", "5"),
            ("${allMatchingAttributes( 'n.*' ):plus(1):count()}", "3"),
        ],
    ),
    (
        "testGetAttributeValue",
        {"attr": "My Value"},
        [
            ("${attr}", "My Value"),
        ],
    ),
    (
        "testGetAttributeValueEmbedded",
        {"attr": "XX ", "XX": "My Value"},
        [
            ("${${attr:trim()}}", "My Value"),
        ],
    ),
    (
        "testSimpleSubstring",
        {"attr": "My Value"},
        [
            ("${attr:substring(2, 5)}", " Va"),
        ],
    ),
    (
        "testCallToFunctionWithSubjectResultOfAnotherFunctionCall",
        {"attr": "   My Value   "},
        [
            ("${attr:trim():substring(2, 5)}", " Va"),
        ],
    ),
    (
        "testEquals",
        {"attr": " XX    "},
        [
            ("${attr:trim():equals('XX')}", "true"),
        ],
    ),
    (
        "testDeeplyEmbedded",
        {"x": "false", "abc": "a", "a": "a"},
        [
            ("${x:or( ${${abc}:length():equals(1)} )}", "true"),
        ],
    ),
    (
        "testEqualsEmbedded",
        {"x": "hello", "y": "good-bye"},
        [
            ("${x:equals( ${y} )}", "false"),
        ],
    ),
    (
        "testEqualsEmbedded",
        {"x": "hello", "y": "hello"},
        [
            ("${x:equals( ${y} )}", "true"),
        ],
    ),
    (
        "testEqualsEmbedded",
        {"x": "4", "y": "3", "z": "1", "h": "100"},
        [
            ("${x:toNumber():lt( ${y:toNumber():plus( ${h:toNumber()} )} )}", "true"),
            ("${h:toNumber():ge( ${y:toNumber():plus( ${z:toNumber()} )} )}", "true"),
            ("${x:toNumber():equals( ${y:toNumber():plus( ${z:toNumber()} )} )}", "true"),
        ],
    ),
    (
        "testEqualsEmbedded",
        {"x": "88", "y": "3", "z": "1", "h": "100"},
        [
            ("${x:toNumber():gt( ${y:toNumber():plus( ${z:toNumber()} )} )}", "true"),
        ],
    ),
    (
        "testEqualsEmbedded",
        {"x": "88", "y": "88", "z": "1", "h": "100"},
        [
            ("${x:equals( '${y}' )}", "true"),
        ],
    ),
    (
        "testComplicatedEmbeddedExpressions",
        {"fox": "quick, brown", "dog": "lazy"},
        [
            ("${fox:substring( ${ 'dog' :substring(2):length()}, 5 ):equals( 'ick' )}", "true"),
        ],
    ),
    (
        "testSingleLetterAttribute",
        {"A": "0123456789"},
        [
            ("${A}", "0123456789"),
            ("${'A'}", "0123456789"),
        ],
    ),
    (
        "testImplicitConversions",
        {
            "A": "0123456789",
            "b": "true",
            "c": "false",
            "d": "Quick Brown Fox",
            "F": "-48",
            "n": "2014/04/04 00:00:00",
        },
        [
            ("${A:plus(4)}", "123456793"),
            ("${A:plus( ${F} )}", "123456741"),
            ("${F:lt( ${A} )}", "true"),
            ("${A:substring(2,3):plus(21):substring(1,2):plus(0)}", "3"),
        ],
    ),
    (
        "testAppendPrepend",
        {"attr": "XX", "YXXX": "bingo"},
        [
            ("${${attr:append('X'):prepend('Y')}}", "bingo"),
        ],
    ),
    (
        "testIsNull",
        {},
        [
            ("${attr:isNull()}", "true"),
        ],
    ),
    (
        "testNotNull",
        {"attr": ""},
        [
            ("${attr:notNull()}", "true"),
        ],
    ),
    (
        "testIsNullOrLengthEquals0",
        {"abc": "", "xyz": "xyz", "xx": "  "},
        [
            ("${abc:isNull():or( ${abc:length():equals(0)} )}", "true"),
            ("${xyz:isNull():or( ${xyz:length():equals(0)} )}", "false"),
            ("${none:isNull():or( ${none:length():equals(0)} )}", "true"),
            ("${xx:isNull():or( ${xx:trim():length():equals(0)} )}", "true"),
        ],
    ),
    (
        "testReplaceNull",
        {},
        [
            ("${attr:replaceNull('hello')}", "hello"),
        ],
    ),
    (
        "testReplace",
        {"attr": "hello"},
        [
            ("${attr:replace('hell', 'yell')}", "yello"),
        ],
    ),
    (
        "testReplaceAll",
        {"attr": "hello", "xyz": "00-00TEST.2014_01_01_000000_value"},
        [
            ('${xyz:replaceAll("^([^.]+)\\.([0-9]{4})_([0-9]{2})_([0-9]{2}).*$", "$3")}', "01"),
            ("${attr:replaceAll('l+', 'r')}", "hero"),
        ],
    ),
    (
        "testReplaceAll",
        {
            "filename1": "abc.gz",
            "filename2": "abc.g",
            "filename3": "abc.gz.gz",
            "filename4": "abc.gz.g",
            "abc": "hello world",
        },
        [
            ("${filename3:replaceAll('\\\\\\.gz$', '')}", "abc.gz.gz"),
            ("${filename3:replaceAll('\\\\\\\\.gz$', '')}", "abc.gz.gz"),
            ("${filename1:replaceAll('\\.gz$', '')}", "abc"),
            ("${filename2:replaceAll('\\.gz$', '')}", "abc.g"),
            ("${filename4:replaceAll('\\\\.gz$', '')}", "abc.gz.g"),
            ("${abc:replaceAll( 'lo wor(ld)', '$0')}", "hello world"),
            ("${abc:replaceAll( 'he(llo) world', '$1')}", "llo"),
            ("${abc:replaceAll( 'xx', '$0')}", "hello world"),
            ("${abc:replaceAll( '(xx)', '$1')}", "hello world"),
            ("${abc:replaceAll( 'lo wor(ld)', '$1')}", "helld"),
        ],
    ),
    (
        "testReplaceAllWithOddNumberOfBackslashPairs",
        {"filename": "C:\\temp\\.txt"},
        [
            ("${filename:replace('\\\\', '/')}", "C:/temp/.txt"),
            ("${filename:replaceAll('\\\\\\\\', '/')}", "C:/temp/.txt"),
            ("${filename:replaceAll('\\\\\\.txt$', '')}", "C:\\temp"),
        ],
    ),
    (
        "testReplaceAllWithMatchingGroup",
        {"attr": "hello"},
        [
            ("${attr:replaceAll('.*?(l+).*', '$1')}", "ll"),
        ],
    ),
    (
        "testMathWholeNumberOperations",
        {"one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "hundred": "100"},
        [
            (
                "${hundred:toNumber():multiply(${two}):divide(${three}):plus(${one}):mod(${five})}",
                "2",
            ),
        ],
    ),
    (
        "testMathFunction",
        {
            "one": "1",
            "two": "2",
            "oneDecimal": "1.5",
            "twoDecimal": "2.3",
            "negative": "-64",
            "negativeDecimal": "-64.1",
        },
        [
            ("${negative:math('abs')}", "64"),
            ("${negativeDecimal:math('abs')}", "64.1"),
            ("${negative:math('max', ${two})}", "2"),
            ("${negativeDecimal:math('max', ${twoDecimal})}", "2.3"),
        ],
    ),
    (
        "testIndexOf",
        {"attr": "https://abc.go"},
        [
            ("${attr:indexOf('/')}", "6"),
        ],
    ),
    (
        "testAnyAttribute",
        {"abc": "zzz", "xyz": "abc"},
        [
            ("${anyAttribute('abc', 'xyz', 'missingAttr'):substring(1,2):equals('b')}", "true"),
            ("${anyAttribute('abc', 'xyz'):substring(1,2):equals('b')}", "true"),
            ("${anyAttribute('xyz', 'abc'):substring(1,2):equals('b')}", "true"),
            ("${anyAttribute('zz'):substring(1,2):equals('b')}", "false"),
            ("${anyAttribute('abc', 'zz'):isNull()}", "true"),
        ],
    ),
    (
        "testAnyMatchingAttribute",
        {"abc": "zzz", "xyz": "abc", "123.cba": "hello"},
        [
            ("${anyMatchingAttribute('.{2}x', '.{2}z'):substring(1,2):equals('b')}", "true"),
            ("${anyMatchingAttribute('.*'):substring(1,2):equals('b')}", "true"),
            ("${anyMatchingAttribute('x{44}'):substring(1,2):equals('b')}", "false"),
            ("${anyMatchingAttribute('abc'):substring(1,2):equals('b')}", "false"),
            ("${anyMatchingAttribute('xyz'):substring(1,2):equals('b')}", "true"),
            ("${anyMatchingAttribute('xyz'):notNull()}", "true"),
            ("${anyMatchingAttribute('xyz'):isNull()}", "false"),
            ("${anyMatchingAttribute('xxxxxxxxx'):notNull()}", "false"),
            ("${anyMatchingAttribute('123\\.c.*'):matches('hello')}", "true"),
            ("${anyMatchingAttribute('123\\.c.*|a.c'):matches('zzz')}", "true"),
        ],
    ),
    (
        "testAnyDelineatedValue",
        {"abc": "a,b,c", "xyz": "abc"},
        [
            ("${anyDelineatedValue('${abc}', ','):equals('a')}", "true"),
            ("${anyDelineatedValue('${abc}', ','):equals('c')}", "true"),
            ("${anyDelineatedValue('${abc}', ','):equals('d')}", "false"),
            ("${anyDelineatedValue(${abc}, ','):equals('b')}", "true"),
            ("${anyDelineatedValue(${abc}, ','):equals('a')}", "true"),
            ("${anyDelineatedValue(${abc}, ','):equals('c')}", "true"),
            ("${anyDelineatedValue(${abc}, ','):equals('d')}", "false"),
        ],
    ),
    (
        "testAllDelineatedValues",
        {"abc": "a,b,c", "xyz": "abc"},
        [
            ("${allDelineatedValues('${abc}', ','):matches('[abd]')}", "false"),
            ("${allDelineatedValues('${abc}', ','):equals('a'):not()}", "false"),
            ("${allDelineatedValues(${abc}, ','):matches('[abc]')}", "true"),
            ("${allDelineatedValues(${abc}, ','):matches('[abd]')}", "false"),
            ("${allDelineatedValues(${abc}, ','):equals('a'):not()}", "false"),
        ],
    ),
    (
        "testAllDelineatedValuesCount",
        {"test": "/my/path"},
        [
            ("${test:getDelimitedField(1, '/')}", ""),
            ("${test:getDelimitedField(2, '/')}", "my"),
            ("${test:getDelimitedField(3, '/')}", "path"),
        ],
    ),
    (
        "testAllDelineatedValuesCount",
        {"test": "this/is/my/path"},
        [
            ("${test:getDelimitedField(1, '/')}", "this"),
            ("${test:getDelimitedField(2, '/')}", "is"),
            ("${test:getDelimitedField(3, '/')}", "my"),
            ("${test:getDelimitedField(4, '/')}", "path"),
        ],
    ),
    (
        "testAllDelineatedValuesCount",
        {"test": "path/"},
        [
            ("${test:getDelimitedField(1, '/')}", "path"),
        ],
    ),
    (
        "testAllAttributes",
        {"abc": "1234", "xyz": "4132", "hello": "world!"},
        [
            ("${allAttributes('abc', 'xyz'):matches('\\d+')}", "true"),
            ("${allAttributes('abc', 'xyz'):toNumber():lt(99999)}", "true"),
            ("${allAttributes('abc', 'hello'):length():gt(3)}", "true"),
            ("${allAttributes('abc', 'hello'):length():equals(4)}", "false"),
            ("${allAttributes('abc', 'xyz'):length():equals(4)}", "true"),
            ("${allAttributes('abc', 'xyz', 'other'):isNull()}", "false"),
        ],
    ),
    (
        "testMathWholeNumberOperators",
        {"abc": "1234", "xyz": "4132", "hello": "world!"},
        [
            ("${xyz:toNumber():gt( ${abc:toNumber()} )}", "true"),
        ],
    ),
    (
        "testMathDecimalOperators",
        {"one": "1.1", "two": "2.2", "one_2": "1.1"},
        [
            ("${one:lt(${two})}", "true"),
            ("${one:lt(${one_2})}", "false"),
            ("${two:lt(${one})}", "false"),
            ("${one:le(${two})}", "true"),
            ("${one:le(${one_2})}", "true"),
            ("${two:le(${one_2})}", "false"),
            ("${one:ge(${two})}", "false"),
            ("${one:ge(${one_2})}", "true"),
            ("${two:ge(${one_2})}", "true"),
            ("${one:gt(${two})}", "false"),
            ("${one:gt(${one_2})}", "false"),
            ("${two:gt(${one})}", "true"),
        ],
    ),
    (
        "testMathNumberDecimalConversion",
        {"xyz": "1.332", "hello": "world!"},
        [
            ("${xyz:toNumber()}", "1"),
        ],
    ),
    (
        "testLiteral",
        {},
        [
            ("${literal(5)}", "5"),
            ('${literal("5")}', "5"),
            ("${literal(5):toNumber()}", "5"),
            ('${literal("5.5")}', "5.5"),
            ("${literal(5.5):toNumber()}", "5"),
            ("${literal(-5.5):toNumber()}", "-5"),
            ("${literal(+5.5):toNumber()}", "5"),
            ("${literal(5.5):toDecimal()}", "5.5"),
            ("${literal(-5.5):toDecimal()}", "-5.5"),
            ("${literal(+5.5):toDecimal()}", "5.5"),
        ],
    ),
    (
        "testDecimalParsing",
        {},
        [
            ("${literal(-12.5):toDecimal()}", "-12.5"),
            ("${literal(+12.5):toDecimal()}", "12.5"),
            ("${literal(-.5):toDecimal()}", "-0.5"),
        ],
    ),
    (
        "testAllMatchingAttributes",
        {"abc": "1234", "xyz": "4132", "hello": "world!", "123.cba": "hell.o"},
        [
            ("${'123.cba':matches('hell\\.o')}", "true"),
            ("${allMatchingAttributes('123\\.cba'):equals('hell.o')}", "true"),
            ("${allMatchingAttributes('(abc|xyz)'):matches('\\d+')}", "true"),
            ("${allMatchingAttributes('[ax].*'):toNumber():lt(99999)}", "true"),
            ("${allMatchingAttributes('hell.'):length():gt(3)}", "true"),
            ("${allMatchingAttributes('123\\.cba'):equals('no')}", "false"),
        ],
    ),
    (
        "testMatches",
        {"abc": "1234xyz4321", "end": "888", "xyz": "4132", "hello": "world!", "dotted": "abc.xyz"},
        [
            ("${dotted:matches('abc\\.xyz')}", "true"),
            ("${abc:matches(${not.here})}", "false"),
        ],
    ),
    (
        "testFind",
        {"abc": "1234xyz4321", "end": "888", "xyz": "4132", "hello": "world!", "dotted": "abc.xyz"},
        [
            ("${dotted:find('\\.')}", "true"),
            ("${abc:find(${not.here})}", "false"),
        ],
    ),
    (
        "testSubstringAfter",
        {"filename": "file-255"},
        [
            ("${filename:substringAfter('')}", "file-255"),
            ("${filename:substringAfterLast('')}", "file-255"),
            ("${filename:substringBefore('')}", "file-255"),
            ("${filename:substringBeforeLast('')}", "file-255"),
            ("${filename:substringBefore('file')}", ""),
        ],
    ),
    (
        "testSubstringAfter",
        {"filename": "file-255", "uri": "sftp://some.uri"},
        [
            ("${uri:substringAfter('sftp')}", "://some.uri"),
        ],
    ),
    (
        "testSubstringAfterLast",
        {"filename": "file-file-255"},
        [
            ("${filename:substringAfterLast('file-')}", "255"),
            ("${filename:substringAfterLast('5')}", ""),
            ("${filename:substringAfterLast('x')}", "file-file-255"),
        ],
    ),
    (
        "testSubstringBefore",
        {"something": "some {} or other"},
        [
            ("${something:substringBefore('}')}", "some {"),
        ],
    ),
    (
        "testSubstring",
        {"filename": "file-255"},
        [
            ("${filename:substring(1, 2)}", "i"),
            ("${filename:substring(4)}", "-255"),
        ],
    ),
    (
        "testSubstringOOB",
        {"filename": "file-255"},
        [
            ("${filename:substring(10, 20)}", ""),
            ("${filename:substring(10)}", ""),
            ("${filename:substring(-2)}", ""),
            ("${filename:substring(2, -2)}", ""),
        ],
    ),
    (
        "testToRadix",
        {"filename": "file-255", "filename2": "file-99999"},
        [
            ("${filename:substringAfter('-'):toNumber():toRadix(16):toUpper()}", "FF"),
            ("${filename:substringAfter('-'):toNumber():toRadix(16, 4):toUpper()}", "00FF"),
            ("${filename:substringAfter('-'):toNumber():toRadix(36, 3):toUpper()}", "073"),
        ],
    ),
    (
        "testFromRadix",
        {"test1": "ABCDEF", "test2": "123"},
        [
            ("${test2:fromRadix(4)}", "27"),
        ],
    ),
    (
        "testBase64Encode",
        {"userpass": "admin:admin"},
        [
            ("${userpass:base64Encode()}", "YWRtaW46YWRtaW4="),
        ],
    ),
    (
        "testBase64Decode",
        {"userpassbase64": "YWRtaW46YWRtaW4="},
        [
            ("${userpassbase64:base64Decode()}", "admin:admin"),
        ],
    ),
    (
        "testAttributesWithSpaces",
        {"ab": "abc", "a  b": "abc"},
        [
            ("${ab}", "abc"),
            ("${'a  b'}", "abc"),
            ("${'a b':replaceNull('')}", ""),
        ],
    ),
    (
        "testOr",
        {"filename1": "xabc", "filename2": "yabc", "filename3": "abcxy"},
        [
            ("${filename1:startsWith('x'):or(true)}", "true"),
            ("${filename1:startsWith('x'):or( ${filename1:startsWith('y')} )}", "true"),
            ("${filename2:startsWith('x'):or( ${filename2:startsWith('y')} )}", "true"),
            ("${filename3:startsWith('x'):or( ${filename3:startsWith('y')} )}", "false"),
            ("${filename1:startsWith('x'):or( ${filename2:startsWith('y')} )}", "true"),
            ("${filename2:startsWith('x'):or( ${filename1:startsWith('y')} )}", "false"),
        ],
    ),
    (
        "testAnd",
        {"filename1": "xabc", "filename2": "yabc", "filename 3": "abcxy"},
        [
            ("${filename1:startsWith('x'):and(true)}", "true"),
            ("${filename1:startsWith('x') : and( false )}", "false"),
            ("${filename1:startsWith('x'):and( ${filename1:startsWith('y')} )}", "false"),
            ("${filename2:startsWith('x'):and( ${filename2:startsWith('y')} )}", "false"),
            ("${filename3:startsWith('x'):and( ${filename3:startsWith('y')} )}", "false"),
            ("${filename1:startsWith('x'):and( ${filename2:startsWith('y')} )}", "true"),
            ("${filename2:startsWith('x'):and( ${filename1:startsWith('y')} )}", "false"),
            ("${filename1:startsWith('x'):and( ${'filename 3':endsWith('y')} )}", "true"),
        ],
    ),
    (
        "testAndOrLogicWithAnyAll",
        {"filename1": "xabc", "filename2": "yabc", "filename 3": "abcxy"},
        [
            (
                "${anyMatchingAttribute('filename.*'):contains('abc'):and( ${filename2:equals('yabc')} )}",
                "true",
            ),
            (
                "${anyMatchingAttribute('filename.*'):contains('abc'):and( ${filename2:equals('xabc')} )}",
                "false",
            ),
            (
                "${anyMatchingAttribute('filename.*'):contains('abc'):not():or( ${filename2:equals('yabc')} )}",
                "true",
            ),
            (
                "${anyMatchingAttribute('filename.*'):contains('abc'):not():or( ${filename2:equals('xabc')} )}",
                "false",
            ),
        ],
    ),
    (
        "testKeywords",
        {"UUID": "123"},
        [
            ("${ 'UUID':toNumber():equals(123) }", "true"),
        ],
    ),
    (
        "testEqualsNumber",
        {"abc": "123"},
        [
            ("${ abc:toNumber():equals(123) }", "true"),
        ],
    ),
    (
        "testIn",
        {"myEnum": "JOHN"},
        [
            ("${ myEnum:in('PAUL', 'JOHN', 'MIKE') }", "true"),
            ("${ myEnum:in('RED', 'BLUE', 'GREEN') }", "false"),
        ],
    ),
    (
        "testIn",
        {"myEnum": "JOHN", "toReplace": "BLUE"},
        [
            ("${ myEnum:in('RED', ${ toReplace:replace('BLUE', 'JOHN') }, 'GREEN') }", "true"),
        ],
    ),
    (
        "testFunctionAfterReduce",
        {"a1": "123", "a2": "321"},
        [
            ("${allMatchingAttributes('a.*'):contains('2')}", "true"),
            ("${allMatchingAttributes('a.*'):contains('2'):toUpper():equals('TRUE')}", "true"),
            (
                "${allMatchingAttributes('a.*'):contains('2'):equals('true'):and( ${literal(true)} )}",
                "true",
            ),
        ],
    ),
    (
        "testGetDelimitedField",
        {"line": "Name, Age, Title"},
        [
            ("${line:getDelimitedField(1)}", "Name"),
            ("${line:getDelimitedField(1, ',')}", "Name"),
            ("${line:getDelimitedField(1, ',', '\"')}", "Name"),
            ("${line:getDelimitedField(1, ',', '\"', '\\\\')}", "Name"),
            ("${line:getDelimitedField(2)}", " Age"),
            ("${line:getDelimitedField(2, ',')}", " Age"),
            ("${line:getDelimitedField(2, ',', '\"')}", " Age"),
            ("${line:getDelimitedField(2, ',', '\"', '\\\\')}", " Age"),
            ("${line:getDelimitedField(3)}", " Title"),
            ("${line:getDelimitedField(3, ',')}", " Title"),
            ("${line:getDelimitedField(3, ',', '\"')}", " Title"),
            ("${line:getDelimitedField(3, ',', '\"', '\\\\')}", " Title"),
        ],
    ),
    (
        "testGetDelimitedField",
        {"line": "First Name, Age, Title"},
        [
            ("${line:getDelimitedField(1)}", "First Name"),
            ("${line:getDelimitedField(1, ',')}", "First Name"),
            ("${line:getDelimitedField(1, ',', '\"')}", "First Name"),
            ("${line:getDelimitedField(1, ',', '\"', '\\\\')}", "First Name"),
        ],
    ),
    (
        "testGetDelimitedField",
        {"line": '"Name (Last, First)", Age, Title'},
        [
            ("${line:getDelimitedField(1)}", '"Name (Last, First)"'),
            ("${line:getDelimitedField(1, ',')}", '"Name (Last, First)"'),
            ("${line:getDelimitedField(1, ',', '\"')}", '"Name (Last, First)"'),
            ("${line:getDelimitedField(1, ',', '\"', '\\\\')}", '"Name (Last, First)"'),
        ],
    ),
    (
        "testGetDelimitedField",
        {"line": "_Name (Last, First)_, Age, Title"},
        [
            ("${line:getDelimitedField(1)}", "_Name (Last"),
            ("${line:getDelimitedField(1, ',', '_')}", "_Name (Last, First)_"),
        ],
    ),
    (
        "testGetDelimitedField",
        {"line": "Name (Last\\, First), Age, Title"},
        [
            ("${line:getDelimitedField(1)}", "Name (Last\\, First)"),
        ],
    ),
    (
        "testGetDelimitedField",
        {"line": "Name (Last__, First), Age, Title"},
        [
            ("${line:getDelimitedField(1, ',', '\"', '_')}", "Name (Last__"),
        ],
    ),
    (
        "testGetDelimitedField",
        {"line": "Name (Last_, First), Age, Title"},
        [
            ("${line:getDelimitedField(1, ',', '\"', '_')}", "Name (Last_, First)"),
        ],
    ),
    (
        "testGetDelimitedField",
        {"line": '\\"Name (Last, First), Age, Title'},
        [
            ("${line:getDelimitedField(1)}", '\\"Name (Last'),
        ],
    ),
    (
        "testGetDelimitedField",
        {"line": "Name, Age, Title"},
        [
            ("${line:getDelimitedField(12)}", ""),
        ],
    ),
    (
        "testGetDelimitedField",
        {"line": 'col 1, col 2, "The First, Second, and \\"Last\\" Column", Last'},
        [
            ("${line:getDelimitedField(3):trim()}", '"The First, Second, and \\"Last\\" Column"'),
            (
                "${line:getDelimitedField(3, ',', '\"', '\\\\', true):trim()}",
                'The First, Second, and "Last" Column',
            ),
        ],
    ),
    (
        "testGetDelimitedField",
        {"line": '"Jacobson, John", 32, Mr.'},
        [
            ("${line:getDelimitedField(2)}", " 32"),
        ],
    ),
    (
        "testEscapeFunctions",
        {"string": 'making air "QUOTES".'},
        [
            ("${string:escapeJson()}", 'making air \\"QUOTES\\".'),
        ],
    ),
    (
        "testEscapeFunctions",
        {"string": "M & M"},
        [
            ("${string:escapeXml()}", "M &amp; M"),
        ],
    ),
    (
        "testEscapeFunctions",
        {"string": 'making air "QUOTES".'},
        [
            ("${string:escapeCsv()}", '"making air ""QUOTES""."'),
        ],
    ),
    (
        "testEscapeFunctions",
        {"string": "special ¡"},
        [
            ("${string:escapeHtml3()}", "special &iexcl;"),
        ],
    ),
    (
        "testEscapeFunctions",
        {"string": "special ♣"},
        [
            ("${string:escapeHtml4()}", "special &clubs;"),
        ],
    ),
    (
        "testUnescapeFunctions",
        {"string": 'making air \\"QUOTES\\".'},
        [
            ("${string:unescapeJson()}", 'making air "QUOTES".'),
        ],
    ),
    (
        "testUnescapeFunctions",
        {"string": "M &amp; M"},
        [
            ("${string:unescapeXml()}", "M & M"),
        ],
    ),
    (
        "testUnescapeFunctions",
        {"string": '"making air ""QUOTES""."'},
        [
            ("${string:unescapeCsv()}", 'making air "QUOTES".'),
        ],
    ),
    (
        "testUnescapeFunctions",
        {"string": "special &iexcl;"},
        [
            ("${string:unescapeHtml3()}", "special ¡"),
        ],
    ),
    (
        "testUnescapeFunctions",
        {"string": "special &clubs;"},
        [
            ("${string:unescapeHtml4()}", "special ♣"),
        ],
    ),
    (
        "testIfElse",
        {},
        [
            ("${attr:isNull():ifElse('a', 'b')}", "a"),
            ("${attr:ifElse('a', 'b')}", "b"),
        ],
    ),
    (
        "testIfElse",
        {"attr": "hello"},
        [
            ("${attr:isNull():ifElse('a', 'b')}", "b"),
            ("${attr:ifElse('a', 'b')}", "b"),
        ],
    ),
    (
        "testIfElse",
        {"attr": "true"},
        [
            ("${attr:ifElse('a', 'b')}", "a"),
            ("${attr2:isNull():ifElse('a', 'b')}", "a"),
            ("${literal(true):ifElse('a', 'b')}", "a"),
            ("${literal(true):ifElse(false, 'b')}", "false"),
        ],
    ),
    (
        "testHash",
        {"str_attr": "string value", "nbr_attr": "10"},
        [
            ("${literal('john'):hash('MD5')}", "527bd5b5d689e2c32ae974c6229ff785"),
            ("${str_attr:hash('MD5')}", "64e58419496c7248b4ef25731f88b8c3"),
            ("${str_attr:hash('SHA-1')}", "34990db823e7bb2b47278a7fbf08c62d9e8e4307"),
            (
                "${str_attr:hash('SHA-256')}",
                "9b6a1a9167a5caf3f5948413faa89e0ec0de89e12bef55327442e60dcc0e8c9b",
            ),
            ("${nbr_attr:toNumber():hash('MD5')}", "d3d9446802a44259755d38e6d163e820"),
            ("${nbr_attr:hash('MD5')}", "d3d9446802a44259755d38e6d163e820"),
        ],
    ),
    (
        "testReplaceByPattern",
        {"str_attr": "myValue2"},
        [
            ("${str_attr:replaceByPattern('')}", "myValue2"),
            ("${str_attr:replaceByPattern(${doesnotexist})}", "myValue2"),
            ("${str_attr:replaceByPattern('.*:foo')}", "foo"),
            ("${str_attr:replaceByPattern('myValue2:test,.*:foo')}", "test"),
            ("${str_attr:replaceByPattern('myValue[3-4]:test,.*:foo')}", "foo"),
            ("${str_attr:replaceByPattern('myValue[3-4]:test,abc:foo')}", "myValue2"),
            ("${str_attr:replaceByPattern('myValue[3-4]:test, abc:foo, myValue[1-4]:xyz')}", "xyz"),
            ("${str_attr:replaceByPattern('myValue1:test,myValue2:test,myValue3:test')}", "test"),
            (
                "${str_attr:replaceByPattern(${literal('myValue[3-4]:test'):append(','):append(' .*:foo')})}",
                "foo",
            ),
        ],
    ),
    (
        "testPadLeft",
        {"attr": "hello", "emptyString": ""},
        [
            ("${attr:padLeft(10, '@')}", "@@@@@hello"),
            ("${attr:padLeft(10)}", "_____hello"),
            ('${attr:padLeft(10, "xy")}', "xyxyxhello"),
            ('${attr:padLeft(10, "aVeryLongPaddingString")}', "aVeryhello"),
            ('${attr:padLeft(1, "a")}', "hello"),
            ('${attr:padLeft(-10, "a")}', "hello"),
            ("${emptyString:padLeft(10, '@')}", "@@@@@@@@@@"),
            ('${attr:padLeft(9999999999, "abc")}', "hello"),
        ],
    ),
    (
        "testPadRight",
        {"attr": "hello", "emptyString": ""},
        [
            ("${attr:padRight(10, '@')}", "hello@@@@@"),
            ("${attr:padRight(10)}", "hello_____"),
            ('${attr:padRight(10, "xy")}', "helloxyxyx"),
            ('${attr:padRight(10, "aVeryLongPaddingString")}', "helloaVery"),
            ('${attr:padRight(1, "a")}', "hello"),
            ('${attr:padRight(-10, "a")}', "hello"),
            ("${emptyString:padRight(10, '@')}", "@@@@@@@@@@"),
            ('${attr:padRight(9999999999, "abc")}', "hello"),
        ],
    ),
    (
        "testRepeat",
        {"str": "abc"},
        [
            ("${not_exist:repeat(1, 2)}", ""),
            ("${str:repeat(1, 1)}", "abc"),
            ("${str:repeat(4)}", "abcabcabcabc"),
        ],
    ),
    (
        "testUuidsWithNamespace",
        {
            "myattr0": "u5IkOYFFvYioYBJSNI2XNjPaVoRjXYnr",
            "myattr1": "mSDgSKQrY67QCTPatV5qHrZa4oUQ2wEX",
            "myattr2": "u6jH7pF8iAqwjr42i3r5DubdNcgwqEaX",
            "myattr3": "9eDG1KbqvHrtIMSmvH44t0K7fHXs7xtz",
            "myattr4": "QeAUDsMYoHJHLsy1BPPSmQWKhCKvwEpj",
            "myattr5": "U5Cw4b79SW1YiB5Va3DfUMI9y4iJwnVS",
            "myattr6": "Ig51Jl3EtwaKlVo9MnDSDdJSlXMgZ1It",
            "myattr7": "F2iLLLHXgliEpIDwJ4JcqeWBVi70cHS6",
            "myattr8": "1BFShkKLOcjwn1GMsyO4Fmb0iNTVt2Tf",
            "myattr9": "WxiyO8Gzw0jQnBlYeZMcdNTwCWJe5MNg",
        },
        [
            (
                "${myattr0:UUID3('b9e81de3-7047-4b5e-a822-8fff5b49f808')}",
                "7ab88cc4-7748-3214-812a-1bc4500a911a",
            ),
            (
                "${myattr1:UUID3('341857cc-c5f3-4f76-b336-169f81e9dc7a')}",
                "d788c2df-95e1-33aa-a548-9be42f222909",
            ),
            (
                "${myattr2:UUID3('27e35966-52c9-48ba-bc91-3894a2f164d8')}",
                "e960f7af-5eec-3298-8512-e3933836bd5a",
            ),
            (
                "${myattr3:UUID3('1aef683a-2c0b-4f0e-9287-792361873e8f')}",
                "bf1727d8-93d3-3550-9071-78c8686f30c3",
            ),
            (
                "${myattr4:UUID3('5f15efac-e274-42b1-8d0f-15c2c97acb7d')}",
                "9e68a780-090d-30a9-903c-22cf7eb5c511",
            ),
            (
                "${myattr5:UUID3('ebd71811-fd78-4929-856b-4cec7a38d666')}",
                "a2a4b1b5-d93f-3656-be0d-f1db281060c1",
            ),
            (
                "${myattr6:UUID3('7b1bce89-f12b-4b56-afb8-f9b0a1334926')}",
                "8eea2153-d42e-3f63-892c-33ff7f0be389",
            ),
            (
                "${myattr7:UUID3('fe085c56-95e2-4cf8-8612-ba878ed35f0b')}",
                "3cd6470f-5432-3599-82ce-1f2b22adcec6",
            ),
            (
                "${myattr8:UUID3('2be146a5-f54e-4ca1-a10d-d219e9fc6c6f')}",
                "c3ed8ced-b32f-39da-a7ea-75934f419446",
            ),
            (
                "${myattr9:UUID3('4939d5dd-51c1-4d0e-badd-77fa7c7eebc1')}",
                "6507198b-f565-3196-9123-6f946f8c53bc",
            ),
            ("${myattr9:UUID3(${myattr11})}", "f2d25da2-cc06-34de-80a3-cf64aff82020"),
            (
                "${myattr0:UUID5('245b55a8-397d-4480-a41e-16603c8cf9ad')}",
                "74f6dc12-6d84-500c-9583-e9fed79912ea",
            ),
            (
                "${myattr1:UUID5('45089bfa-f5eb-40e3-bc02-4270ccb8ef34')}",
                "7b197702-0ed0-5494-9f61-417e26010308",
            ),
            (
                "${myattr2:UUID5('49861367-c791-4d6d-987e-fe994b2ee4b7')}",
                "7b38b455-a0d6-53bd-a0fa-d0f3bf4e7399",
            ),
            (
                "${myattr3:UUID5('1142b2d9-e434-4931-b1a5-6dbf363aa9cf')}",
                "cd13422e-b030-547b-807b-a868e9282eab",
            ),
            (
                "${myattr4:UUID5('967190d3-b4ba-4ef3-a8e6-3b8bf2d3f1d8')}",
                "e4f1ef89-0d25-55cd-bc4b-1904813c3137",
            ),
            (
                "${myattr5:UUID5('2942f01d-82df-40ee-b1fd-476542160b7c')}",
                "a0415b30-5ef9-5530-93a2-fd20f4262d68",
            ),
            (
                "${myattr6:UUID5('3a47c04b-7cea-4c95-a379-018e64c701c5')}",
                "e1931aad-30e8-5283-8505-394f0d08b181",
            ),
            (
                "${myattr7:UUID5('6f78ce33-4186-46c0-ae05-15f8c78024cf')}",
                "a5c80e26-88d6-5de9-9234-66a050f4d940",
            ),
            (
                "${myattr8:UUID5('b85962a8-6614-49f4-8fdd-a984cf35144e')}",
                "6e33ce29-d3f0-59ee-a864-c05ec4d4300d",
            ),
            (
                "${myattr9:UUID5('5b6da974-4eca-4c17-bbd2-3b59a1b40bee')}",
                "2e2e846c-1cbc-54b2-96f7-5a66d246126f",
            ),
            ("${myattr9:UUID5(${myattr11})}", "0231a7bf-7bbe-5a0c-8bbd-9c7bc2e95071"),
        ],
    ),
    (
        "testIsJson",
        {
            "jsonObj": '{"name":"John", "age":30, "car":null}',
            "jsonObjWithLeadingAndTrailingingSpaces": '\n{"name":"John", "age":30, "car":null}\n',
            "jsonObjMissingStartingBrace": '"name":"John", "age":30, "car":null}',
            "jsonObjMissingEndingBrace": '{"name":"John", "age":30, "car":null',
            "jsonArray": '["Ford", "BMW", "Fiat"]',
            "jsonArrayMissingStartingBracket": '"Ford", "BMW", "Fiat"]',
            "jsonArrayMissingEndingBracket": '["Ford", "BMW", "Fiat"',
            "emptyQuotedString": '""',
            "quotedString": '"someString"',
            "integer": "1234",
            "decimal": "18.36",
            "trueAttr": "true",
            "falseAttr": "false",
            "nullAttr": "null",
        },
        [
            ("${jsonObj:isJson()}", "true"),
            ("${jsonObjWithLeadingAndTrailingingSpaces:isJson()}", "true"),
            ("${jsonObjMissingStartingBrace:isJson()}", "false"),
            ("${jsonObjMissingEndingBrace:isJson()}", "false"),
            ("${jsonArray:isJson()}", "true"),
            ("${jsonArrayMissingStartingBracket:isJson()}", "false"),
            ("${jsonArrayMissingEndingBracket:isJson()}", "false"),
            ("${someAttribute:isJson()}", "false"),
            ("${emptyQuotedString:isJson()}", "false"),
            ("${quotedString:isJson()}", "false"),
            ("${integer:isJson()}", "false"),
            ("${decimal:isJson()}", "false"),
            ("${trueAttr:isJson()}", "false"),
            ("${falseAttr:isJson()}", "false"),
            ("${nullAttr:isJson()}", "false"),
        ],
    ),
    (
        "testUnique",
        {"list": "apple,banana,apple,orange,banana,grape"},
        [
            ("${list:unique(',')}", "apple,banana,orange,grape"),
        ],
    ),
    (
        "testUnique",
        {
            "list": "apple,banana,apple,orange,banana,grape",
            "pipe_list": "red|blue|red|green|blue|yellow",
        },
        [
            ("${pipe_list:unique('|')}", "red|blue|green|yellow"),
        ],
    ),
    (
        "testUnique",
        {
            "list": "apple,banana,apple,orange,banana,grape",
            "pipe_list": "red|blue|red|green|blue|yellow",
            "space_list": "one two one three two four",
        },
        [
            ("${space_list:unique(' ')}", "one two three four"),
        ],
    ),
    (
        "testUnique",
        {
            "list": "apple,banana,apple,orange,banana,grape",
            "pipe_list": "red|blue|red|green|blue|yellow",
            "space_list": "one two one three two four",
            "empty_values_in_list": "a,b,,c,,d,b",
        },
        [
            ("${empty_values_in_list:unique(',')}", "a,b,,c,d"),
        ],
    ),
    (
        "testUnique",
        {
            "list": "apple,banana,apple,orange,banana,grape",
            "pipe_list": "red|blue|red|green|blue|yellow",
            "space_list": "one two one three two four",
            "empty_values_in_list": "a,b,,c,,d,b",
            "single": "only_one",
        },
        [
            ("${single:unique(',')}", "only_one"),
        ],
    ),
    (
        "testUnique",
        {
            "list": "apple,banana,apple,orange,banana,grape",
            "pipe_list": "red|blue|red|green|blue|yellow",
            "space_list": "one two one three two four",
            "empty_values_in_list": "a,b,,c,,d,b",
            "single": "only_one",
            "no_dups": "x,y,z",
        },
        [
            ("${no_dups:unique(',')}", "x,y,z"),
        ],
    ),
    (
        "testUnique",
        {
            "list": "apple,banana,apple,orange,banana,grape",
            "pipe_list": "red|blue|red|green|blue|yellow",
            "space_list": "one two one three two four",
            "empty_values_in_list": "a,b,,c,,d,b",
            "single": "only_one",
            "no_dups": "x,y,z",
            "all_dups": "same,same,same,same",
        },
        [
            ("${all_dups:unique(',')}", "same"),
        ],
    ),
    (
        "testUnique",
        {
            "list": "apple,banana,apple,orange,banana,grape",
            "pipe_list": "red|blue|red|green|blue|yellow",
            "space_list": "one two one three two four",
            "empty_values_in_list": "a,b,,c,,d,b",
            "single": "only_one",
            "no_dups": "x,y,z",
            "all_dups": "same,same,same,same",
            "multi_sep": "one::two::one::three::two",
        },
        [
            ("${multi_sep:unique('::')}", "one::two::three"),
        ],
    ),
    (
        "testUnique",
        {
            "list": "apple,banana,apple,orange,banana,grape",
            "pipe_list": "red|blue|red|green|blue|yellow",
            "space_list": "one two one three two four",
            "empty_values_in_list": "a,b,,c,,d,b",
            "single": "only_one",
            "no_dups": "x,y,z",
            "all_dups": "same,same,same,same",
            "multi_sep": "one::two::one::three::two",
            "special_sep": "a|b|a|c|b",
        },
        [
            ("${special_sep:unique('|')}", "a|b|c"),
        ],
    ),
    (
        "testUnique",
        {
            "list": "apple,banana,apple,orange,banana,grape",
            "pipe_list": "red|blue|red|green|blue|yellow",
            "space_list": "one two one three two four",
            "empty_values_in_list": "a,b,,c,,d,b",
            "single": "only_one",
            "no_dups": "x,y,z",
            "all_dups": "same,same,same,same",
            "multi_sep": "one::two::one::three::two",
            "special_sep": "a|b|a|c|b",
            "test_list": "abc",
        },
        [
            ("${test_list:unique('')}", "abc"),
        ],
    ),
    (
        "testUnique",
        {
            "list": "apple,banana,apple,orange,banana,grape",
            "pipe_list": "red|blue|red|green|blue|yellow",
            "space_list": "one two one three two four",
            "empty_values_in_list": "a,b,,c,,d,b",
            "single": "only_one",
            "no_dups": "x,y,z",
            "all_dups": "same,same,same,same",
            "multi_sep": "one::two::one::three::two",
            "special_sep": "a|b|a|c|b",
            "test_list": "abc",
            "empty_attr": "",
        },
        [
            ("${empty_attr:unique(',')}", ""),
            ("${missing_attr:unique(',')}", ""),
        ],
    ),
    (
        "testUnique",
        {
            "list": "apple,banana,apple,orange,banana,grape",
            "pipe_list": "red|blue|red|green|blue|yellow",
            "space_list": "one two one three two four",
            "empty_values_in_list": "a,b,,c,,d,b",
            "single": "only_one",
            "no_dups": "x,y,z",
            "all_dups": "same,same,same,same",
            "multi_sep": "one::two::one::three::two",
            "special_sep": "a|b|a|c|b",
            "test_list": "abc",
            "empty_attr": "",
            "ordered": "3,1,4,1,5,9,2,6,5,3,5",
        },
        [
            ("${ordered:unique(',')}", "3,1,4,5,9,2,6"),
        ],
    ),
    (
        "testUnique",
        {
            "list": "apple,banana,apple,orange,banana,grape",
            "pipe_list": "red|blue|red|green|blue|yellow",
            "space_list": "one two one three two four",
            "empty_values_in_list": "a,b,,c,,d,b",
            "single": "only_one",
            "no_dups": "x,y,z",
            "all_dups": "same,same,same,same",
            "multi_sep": "one::two::one::three::two",
            "special_sep": "a|b|a|c|b",
            "test_list": "abc",
            "empty_attr": "",
            "ordered": "3,1,4,1,5,9,2,6,5,3,5",
            "urls": "http://example.com,http://test.com,http://example.com",
        },
        [
            ("${urls:unique(',')}", "http://example.com,http://test.com"),
        ],
    ),
    (
        "testUnique",
        {
            "list": "apple,banana,apple,orange,banana,grape",
            "pipe_list": "red|blue|red|green|blue|yellow",
            "space_list": "one two one three two four",
            "empty_values_in_list": "a,b,,c,,d,b",
            "single": "only_one",
            "no_dups": "x,y,z",
            "all_dups": "same,same,same,same",
            "multi_sep": "one::two::one::three::two",
            "special_sep": "a|b|a|c|b",
            "test_list": "abc",
            "empty_attr": "",
            "ordered": "3,1,4,1,5,9,2,6,5,3,5",
            "urls": "http://example.com,http://test.com,http://example.com",
            "paths": "C:\\Users\\test;D:\\Data;C:\\Users\\test;E:\\Backup",
        },
        [
            ("${paths:unique(';')}", "C:\\Users\\test;D:\\Data;E:\\Backup"),
        ],
    ),
    (
        "testUnique",
        {
            "list": "apple,banana,apple,orange,banana,grape",
            "pipe_list": "red|blue|red|green|blue|yellow",
            "space_list": "one two one three two four",
            "empty_values_in_list": "a,b,,c,,d,b",
            "single": "only_one",
            "no_dups": "x,y,z",
            "all_dups": "same,same,same,same",
            "multi_sep": "one::two::one::three::two",
            "special_sep": "a|b|a|c|b",
            "test_list": "abc",
            "empty_attr": "",
            "ordered": "3,1,4,1,5,9,2,6,5,3,5",
            "urls": "http://example.com,http://test.com,http://example.com",
            "paths": "C:\\Users\\test;D:\\Data;C:\\Users\\test;E:\\Backup",
            "dash_separated": "field1-field2-field1-field3",
        },
        [
            ("${dash_separated:unique('-')}", "field1-field2-field3"),
        ],
    ),
    (
        "testCompactDelimitedList",
        {"input": ",a,b,c,,"},
        [
            ("${input:compactDelimitedList(',')}", "a,b,c"),
        ],
    ),
    (
        "testCompactDelimitedList",
        {"input": "a,,b,,,c"},
        [
            ("${input:compactDelimitedList(',')}", "a,b,c"),
        ],
    ),
    (
        "testCompactDelimitedList",
        {"input": ",,a,,b,,c,,"},
        [
            ("${input:compactDelimitedList(',')}", "a,b,c"),
        ],
    ),
    (
        "testCompactDelimitedList",
        {"input": ",,,"},
        [
            ("${input:compactDelimitedList(',')}", ""),
        ],
    ),
    (
        "testCompactDelimitedList",
        {"input": "a,b,c"},
        [
            ("${input:compactDelimitedList(',')}", "a,b,c"),
        ],
    ),
    (
        "testCompactDelimitedList",
        {"input": "a"},
        [
            ("${input:compactDelimitedList(',')}", "a"),
        ],
    ),
    (
        "testCompactDelimitedList",
        {"input": ""},
        [
            ("${input:compactDelimitedList(',')}", ""),
        ],
    ),
    (
        "testCompactDelimitedList",
        {"input": ","},
        [
            ("${input:compactDelimitedList(',')}", ""),
        ],
    ),
    (
        "testCompactDelimitedList",
        {"input": "|a|b||c|"},
        [
            ("${input:compactDelimitedList('|')}", "a|b|c"),
        ],
    ),
    (
        "testCompactDelimitedList",
        {"input": "::a::::b::c::"},
        [
            ("${input:compactDelimitedList('::')}", "a::b::c"),
        ],
    ),
    (
        "testCompactDelimitedList",
        {"input": "..a....b..c.."},
        [
            ("${input:compactDelimitedList('..')}", "a..b..c"),
        ],
    ),
    (
        "testCompactDelimitedList",
        {"input": "a, ,b"},
        [
            ("${input:compactDelimitedList(',')}", "a, ,b"),
        ],
    ),
    (
        "testCompactDelimitedList",
        {"input": " ,,a,,b,, "},
        [
            ("${input:trim():compactDelimitedList(',')}", "a,b"),
            ("${missing:compactDelimitedList(',')}", ""),
        ],
    ),
    (
        "testTrimDelimitedList",
        {"input": ",a,b,c,,"},
        [
            ("${input:trimDelimitedList(',')}", "a,b,c"),
        ],
    ),
    (
        "testTrimDelimitedList",
        {"input": "a,,b,,,c"},
        [
            ("${input:trimDelimitedList(',')}", "a,,b,,,c"),
        ],
    ),
    (
        "testTrimDelimitedList",
        {"input": ",,a,,b,,"},
        [
            ("${input:trimDelimitedList(',')}", "a,,b"),
        ],
    ),
    (
        "testTrimDelimitedList",
        {"input": ",,,a,,b,,c,,,"},
        [
            ("${input:trimDelimitedList(',')}", "a,,b,,c"),
        ],
    ),
    (
        "testTrimDelimitedList",
        {"input": ",,,"},
        [
            ("${input:trimDelimitedList(',')}", ""),
        ],
    ),
    (
        "testTrimDelimitedList",
        {"input": "a,b,c"},
        [
            ("${input:trimDelimitedList(',')}", "a,b,c"),
        ],
    ),
    (
        "testTrimDelimitedList",
        {"input": "a"},
        [
            ("${input:trimDelimitedList(',')}", "a"),
        ],
    ),
    (
        "testTrimDelimitedList",
        {"input": ""},
        [
            ("${input:trimDelimitedList(',')}", ""),
        ],
    ),
    (
        "testTrimDelimitedList",
        {"input": ","},
        [
            ("${input:trimDelimitedList(',')}", ""),
        ],
    ),
    (
        "testTrimDelimitedList",
        {"input": "|a||b|c|"},
        [
            ("${input:trimDelimitedList('|')}", "a||b|c"),
        ],
    ),
    (
        "testTrimDelimitedList",
        {"input": "::a::::b::c::"},
        [
            ("${input:trimDelimitedList('::')}", "a::::b::c"),
        ],
    ),
    (
        "testTrimDelimitedList",
        {"input": "..a....b..c.."},
        [
            ("${input:trimDelimitedList('..')}", "a....b..c"),
        ],
    ),
    (
        "testTrimDelimitedList",
        {"input": ", ,a, ,"},
        [
            ("${input:trimDelimitedList(',')}", " ,a, "),
        ],
    ),
    (
        "testTrimDelimitedList",
        {"input": " ,,a,,b,, "},
        [
            ("${input:trim():trimDelimitedList(',')}", "a,,b"),
            ("${missing:trimDelimitedList(',')}", ""),
        ],
    ),
]

CASES = [
    pytest.param(attributes, text, expected, id=f"{method}-{index}")
    for method, attributes, checks in GROUPS
    for index, (text, expected) in enumerate(checks)
]


@pytest.mark.parametrize(("attributes", "text", "expected"), CASES)
def test_nifi_assertion(attributes: dict[str, str], text: str, expected: str) -> None:
    assert evaluate(text, attributes, env={}) == expected


# Date and Instant assertions, with the local zone (the JVM default zone) set to New York.
TIME_GROUPS: list[tuple[str, dict[str, str], list[tuple[str, str]]]] = [
    (
        "testAddOneDayToDate",
        {"dateTime": "2013/11/18 10:22:27.678"},
        [
            (
                "${dateTime:toDate('yyyy/MM/dd HH:mm:ss.SSS'):toNumber():plus(86400000):toDate():format('yyyy/MM/dd HH:mm:ss.SSS')}",
                "2013/11/19 10:22:27.678",
            ),
            (
                "${dateTime:toDate('yyyy/MM/dd HH:mm:ss.SSS'):plus(86400000):format('yyyy/MM/dd HH:mm:ss.SSS')}",
                "2013/11/19 10:22:27.678",
            ),
        ],
    ),
    (
        "testDateConversion",
        {"date": "1403620278642"},
        [
            ("${date:format('yyyy')}", "2014"),
            ("${date:toDate():format('yyyy')}", "2014"),
            ("${date:toNumber():format('yyyy')}", "2014"),
            ("${date:toNumber():toDate():format('yyyy')}", "2014"),
            ("${date:toDate():toNumber():format('yyyy')}", "2014"),
            (
                "${date:toDate():toNumber():toDate():toNumber():toDate():toNumber():format('yyyy')}",
                "2014",
            ),
        ],
    ),
    (
        "testInstantConversion",
        {"instant": "1403620278642"},
        [
            ("${instant:formatInstant('yyyy', 'America/New_York')}", "2014"),
            ("${instant:toInstant():formatInstant('yyyy', 'America/New_York')}", "2014"),
            ("${instant:toNumber():formatInstant('yyyy', 'America/New_York')}", "2014"),
            ("${instant:toNumber():toInstant():formatInstant('yyyy', 'America/New_York')}", "2014"),
            ("${instant:toInstant():toNumber():formatInstant('yyyy', 'America/New_York')}", "2014"),
            (
                "${instant:toInstant():toNumber():toInstant():toNumber():toInstant():toNumber():formatInstant('yyyy', 'America/New_York')}",
                "2014",
            ),
        ],
    ),
    (
        "testImplicitConversions",
        {
            "A": "0123456789",
            "b": "true",
            "c": "false",
            "d": "Quick Brown Fox",
            "F": "-48",
            "n": "2014/04/04 00:00:00",
        },
        [
            ("${n:format( 'yyyy' )}", "2014"),
        ],
    ),
    (
        "testImplicitConversions",
        {
            "A": "0123456789",
            "b": "true",
            "c": "false",
            "d": "Quick Brown Fox",
            "F": "-48",
            "n": "2014/04/04 00:00:00.045",
        },
        [
            ("${n:format( 'yyyy' ):append(','):append( ${n:format( 'SSS' )} )}", "2014,045"),
        ],
    ),
    (
        "testMathResultInterpretation",
        {"ten": "10.1", "two": "2.2"},
        [
            ('${ten:divide(${two:plus(3)}):toDate():format("SSS")}', "001"),
        ],
    ),
    (
        "testDate",
        {"month": "3", "day": "4", "year": "2013"},
        [
            (
                "${year:append('/'):append(${month}):append('/'):append(${day}):toDate('yyyy/MM/dd'):format('D')}",
                "63",
            ),
        ],
    ),
    (
        "testDateFormatConversion",
        {"blue": "20130917162643"},
        [
            (
                "${blue:toDate('yyyyMMddHHmmss'):format(\"yyyy/MM/dd HH:mm:ss.SSS'Z'\")}",
                "2013/09/17 16:26:43.000Z",
            ),
        ],
    ),
    (
        "testDateFormatConversionIsCaseInsensitive",
        {"blue": "10may2004"},
        [
            ("${blue:toDate('ddMMMyyyy'):format('yyyy/MM/dd')}", "2004/05/10"),
        ],
    ),
    (
        "testDateFormatConversionWithTimeZone",
        {"blue": "20130917162643"},
        [
            (
                "${blue:toDate('yyyyMMddHHmmss', 'GMT'):format(\"yyyy/MM/dd HH:mm:ss.SSS'Z'\", 'GMT')}",
                "2013/09/17 16:26:43.000Z",
            ),
            (
                "${blue:toDate('yyyyMMddHHmmss', 'GMT'):format(\"yyyy/MM/dd HH:mm:ss.SSS'Z'\", 'Europe/Paris')}",
                "2013/09/17 18:26:43.000Z",
            ),
            (
                "${blue:toDate('yyyyMMddHHmmss', 'GMT'):format(\"yyyy/MM/dd HH:mm:ss.SSS'Z'\", 'America/Los_Angeles')}",
                "2013/09/17 09:26:43.000Z",
            ),
        ],
    ),
    (
        "testInstantFormatConversion",
        {"blue": "20130917162643"},
        [
            (
                "${blue:toInstant('yyyyMMddHHmmss', 'GMT'):formatInstant(\"yyyy/MM/dd HH:mm:ss.SSS'Z'\", 'GMT')}",
                "2013/09/17 16:26:43.000Z",
            ),
            (
                "${blue:toInstant('yyyyMMddHHmmss', 'GMT'):formatInstant(\"yyyy/MM/dd HH:mm:ss.SSS'Z'\", 'Europe/Paris')}",
                "2013/09/17 18:26:43.000Z",
            ),
            (
                "${blue:toInstant('yyyyMMddHHmmss', 'GMT'):formatInstant(\"yyyy/MM/dd HH:mm:ss.SSS'Z'\", 'America/Los_Angeles')}",
                "2013/09/17 09:26:43.000Z",
            ),
        ],
    ),
    (
        "testIsValidDate",
        {
            "validDate": "04-08-2026",
            "invalidCalendarDate": "31-02-2026",
            "formatMismatch": "2026-08-04",
            "notADate": "not-a-date",
            "validDateWithTime": "2026-08-04 10:15:30",
            "validDateUtc": "2026-08-04 10:15:30",
            "leapDay": "29-02",
            "leapDayInLeapYear": "29-02-2000",
            "leapDayInNonLeapYear": "29-02-2001",
        },
        [
            ("${validDate:isValidDate('dd-MM-yyyy')}", "true"),
            ("${invalidCalendarDate:isValidDate('dd-MM-yyyy')}", "false"),
            ("${formatMismatch:isValidDate('dd-MM-yyyy')}", "false"),
            ("${notADate:isValidDate('dd-MM-yyyy')}", "false"),
            ("${leapDay:isValidDate('dd-MM')}", "true"),
            ("${leapDayInLeapYear:isValidDate('dd-MM-yyyy')}", "true"),
            ("${leapDayInNonLeapYear:isValidDate('dd-MM-yyyy')}", "false"),
            ("${validDateWithTime:isValidDate('yyyy-MM-dd HH:mm:ss', 'UTC')}", "true"),
            ("${notADate:isValidDate('yyyy-MM-dd HH:mm:ss', 'UTC')}", "false"),
        ],
    ),
    (
        "testIsValidDate",
        {
            "validDate": "04-08-2026",
            "invalidCalendarDate": "31-02-2026",
            "formatMismatch": "2026-08-04",
            "notADate": "not-a-date",
            "validDateWithTime": "2026-08-04 10:15:30",
            "validDateUtc": "2026-08-04 10:15:30",
            "leapDay": "29-02",
            "leapDayInLeapYear": "29-02-2000",
            "leapDayInNonLeapYear": "29-02-2001",
            "dstGapTime": "2024-10-06 02:30:00",
            "dstValidTimeBefore": "2024-10-06 01:30:00",
            "dstValidTimeAfter": "2024-10-06 03:30:00",
        },
        [
            ("${dstGapTime:isValidDate('yyyy-MM-dd HH:mm:ss', 'Australia/Sydney')}", "false"),
            (
                "${dstValidTimeBefore:isValidDate('yyyy-MM-dd HH:mm:ss', 'Australia/Sydney')}",
                "true",
            ),
            ("${dstValidTimeAfter:isValidDate('yyyy-MM-dd HH:mm:ss', 'Australia/Sydney')}", "true"),
            ("${validDate:isValidDate('dd-MM-yyyy'):ifElse('valid', 'invalid')}", "valid"),
            (
                "${invalidCalendarDate:isValidDate('dd-MM-yyyy'):ifElse('valid', 'invalid')}",
                "invalid",
            ),
            ("${nonExistentAttr:isValidDate('dd-MM-yyyy')}", "false"),
        ],
    ),
    (
        "testIsValidDate",
        {
            "validDate": "04-08-2026",
            "invalidCalendarDate": "31-02-2026",
            "formatMismatch": "2026-08-04",
            "notADate": "not-a-date",
            "validDateWithTime": "2026-08-04 10:15:30",
            "validDateUtc": "2026-08-04 10:15:30",
            "leapDay": "29-02",
            "leapDayInLeapYear": "29-02-2000",
            "leapDayInNonLeapYear": "29-02-2001",
            "dstGapTime": "2024-10-06 02:30:00",
            "dstValidTimeBefore": "2024-10-06 01:30:00",
            "dstValidTimeAfter": "2024-10-06 03:30:00",
            "paddedDate": "  04-08-2026  ",
        },
        [
            ("${paddedDate:isValidDate('dd-MM-yyyy')}", "true"),
        ],
    ),
    (
        "testIsValidDate",
        {
            "validDate": "04-08-2026",
            "invalidCalendarDate": "31-02-2026",
            "formatMismatch": "2026-08-04",
            "notADate": "not-a-date",
            "validDateWithTime": "2026-08-04 10:15:30",
            "validDateUtc": "2026-08-04 10:15:30",
            "leapDay": "29-02",
            "leapDayInLeapYear": "29-02-2000",
            "leapDayInNonLeapYear": "29-02-2001",
            "dstGapTime": "2024-10-06 02:30:00",
            "dstValidTimeBefore": "2024-10-06 01:30:00",
            "dstValidTimeAfter": "2024-10-06 03:30:00",
            "paddedDate": "  04-08-2026  ",
            "dstGapTime12h": "2024-10-06 02:30:00 AM",
            "dstValidTimeBefore12h": "2024-10-06 01:30:00 AM",
            "dstValidTimeAfter12h": "2024-10-06 03:30:00 AM",
        },
        [
            ("${dstGapTime12h:isValidDate('yyyy-MM-dd hh:mm:ss a', 'Australia/Sydney')}", "false"),
            (
                "${dstValidTimeBefore12h:isValidDate('yyyy-MM-dd hh:mm:ss a', 'Australia/Sydney')}",
                "true",
            ),
            (
                "${dstValidTimeAfter12h:isValidDate('yyyy-MM-dd hh:mm:ss a', 'Australia/Sydney')}",
                "true",
            ),
        ],
    ),
    (
        "testIsValidInstant",
        {
            "isoInstant": "2026-08-04T10:15:30Z",
            "isoOffsetDateTime": "2026-08-04T10:15:30+05:30",
            "notAnInstant": "not-a-date",
            "plainDate": "2026-08-04",
        },
        [
            ("${isoInstant:isValidInstant()}", "true"),
            ("${isoOffsetDateTime:isValidInstant()}", "true"),
            ("${notAnInstant:isValidInstant()}", "false"),
            ("${plainDate:isValidInstant()}", "false"),
            (
                "${isoInstant:isValidInstant():ifElse('valid-instant', 'invalid-instant')}",
                "valid-instant",
            ),
            (
                "${notAnInstant:isValidInstant():ifElse('valid-instant', 'invalid-instant')}",
                "invalid-instant",
            ),
            ("${nonExistentAttr:isValidInstant()}", "false"),
        ],
    ),
]

TIME_CASES = [
    pytest.param(attributes, text, expected, id=f"{method}-{index}")
    for method, attributes, checks in TIME_GROUPS
    for index, (text, expected) in enumerate(checks)
]


@pytest.fixture
def new_york(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Make the process's local zone America/New_York, as a JVM default zone."""
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.usefixtures("new_york")
@pytest.mark.parametrize(("attributes", "text", "expected"), TIME_CASES)
def test_nifi_date_assertion(attributes: dict[str, str], text: str, expected: str) -> None:
    assert evaluate(text, attributes, env={}) == expected

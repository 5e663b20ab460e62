'use strict';

const Y = 2;
module.exports = Y;

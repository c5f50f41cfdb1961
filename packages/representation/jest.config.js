module.exports = require('@flowboard/jest-preset').config(__dirname);
